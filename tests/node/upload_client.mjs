// A client run in a process of its own (`node upload_client.mjs <url>
// <path>`), so that a test measures the memory an upload costs a plain
// program: inside a `node:test` test the same upload grew the process by
// twice as much, whatever the client. It posts the file at <path> as a
// multipart `files` part beside a `note` field, sampling its RSS every
// 2 ms, and prints `{ growth, text }`: the peak growth in bytes over the
// level after a warm-up, and the response's text.

import { HttpClient, HttpClientConfigBuilder } from "@fetchline/fetchline";
import { rssGrowth } from "./helpers.mjs";

const [url, path] = process.argv.slice(2);
const client = new HttpClient(
  new HttpClientConfigBuilder().withBaseUrl(url).withTimeout(60).build(),
);
try {
  // Warm up the connection and the code paths, and let the process settle
  // (its start-up work done in the background), so that the growth measured is the upload's.
  await client.post("/", { files: { small: new Blob(["warm"]) } });
  await new Promise((resolve) => setTimeout(resolve, 200));
  const { result, growth } = await rssGrowth(
    () => client.post("/", { data: { note: "a\nb" }, files: { upload: path } }),
    2,
  );
  process.stdout.write(JSON.stringify({ growth, text: result.text }));
} finally {
  client.close();
}
