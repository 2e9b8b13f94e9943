// maxResponseBytes through each runtime's body reading: a buffered body of
// exactly the limit passes and one byte more fails, an endless body is
// stopped at the limit rather than read on, the limit counts decoded bytes,
// and a streamed read is not capped.

const MESSAGE =
  /^Response body exceeds maxResponseBytes \(999\): GET http:\/\/127\.0\.0\.1:\d+\/limits\/sized \(read it with stream\(\), or raise withMaxResponseBytes\)$/;

export default function ({ lib, fixture, assert }) {
  const key = () => crypto.randomUUID();

  async function withClient(maxBytes, body) {
    const http = new lib.HttpClient(
      new lib.HttpClientConfigBuilder()
        .withBaseUrl(fixture.url)
        .withMaxResponseBytes(maxBytes)
        .withRetry({ maxRetries: 0 })
        .withTimeout(10)
        .build(),
    );
    try {
      return await body(http);
    } finally {
      await http.close();
    }
  }

  return {
    "a body of exactly maxResponseBytes passes, one byte more fails": async () => {
      await withClient(1000, async (http) => {
        const response = await http.get("/limits/sized", { params: { size: 1000 } });
        assert.equal(response.content.byteLength, 1000);
      });
      await withClient(999, async (http) => {
        const error = await assert.rejects(
          http.get("/limits/sized", { params: { size: 1000 } }),
          lib.HttpClientException,
          MESSAGE,
        );
        assert.equal(error.constructor, lib.HttpClientException);
      });
    },
    "an endless body is stopped at the limit, not read on": () =>
      withClient(64 * 1024, async (http) => {
        const k = key();
        await assert.rejects(
          http.get("/limits/endless", { params: { key: k } }),
          lib.HttpClientException,
          /exceeds maxResponseBytes \(65536\)/,
        );
        // The server runs ahead of the client by what the sockets buffer, no more.
        let sent = { done: false };
        for (let poll = 0; poll < 100 && !sent.done; poll++) {
          await new Promise((resolve) => setTimeout(resolve, 50));
          sent = (await http.get("/limits/sent", { params: { key: k } })).json();
        }
        assert.ok(sent.done, "the connection was not closed within 5 s");
        assert.ok(sent.bytes < 16 * 1024 * 1024, `the server sent ${sent.bytes} bytes`);
      }),
    "the limit counts decoded bytes, not the bytes on the wire": async () => {
      const params = { size: 1024 * 1024, gzip: 1 };
      await withClient(64 * 1024, async (http) => {
        await assert.rejects(
          http.get("/limits/sized", { params }),
          lib.HttpClientException,
          /\(65536\)/,
        );
      });
      await withClient(Infinity, async (http) => {
        assert.equal((await http.get("/limits/sized", { params })).content.byteLength, 1024 * 1024);
      });
    },
    "a limit of 0 takes an empty body and refuses one byte": () =>
      withClient(0, async (http) => {
        assert.equal(
          (await http.get("/limits/sized", { params: { size: 0 } })).content.byteLength,
          0,
        );
        await assert.rejects(
          http.get("/limits/sized", { params: { size: 1 } }),
          lib.HttpClientException,
          /maxResponseBytes \(0\)/,
        );
      }),
    "a streamed body is not capped, its read() is": () =>
      withClient(1024, async (http) => {
        const size = 256 * 1024;
        const streamed = await http.stream("GET", "/limits/sized", { params: { size } });
        let received = 0;
        try {
          for await (const chunk of streamed.body) received += chunk.byteLength;
        } finally {
          await streamed.cancel();
        }
        assert.equal(received, size);
        const buffered = await http.stream("GET", "/limits/sized", { params: { size } });
        try {
          await assert.rejects(
            buffered.read(),
            lib.HttpClientException,
            /maxResponseBytes \(1024\)/,
          );
        } finally {
          await buffered.cancel();
        }
      }),
  };
}
