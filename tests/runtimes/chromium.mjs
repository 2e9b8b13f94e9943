// Drives a headless Chromium (the system's, /usr/bin/chromium) with
// puppeteer-core: opens the page scripts/test_browser.ts serves (its URL
// is the argument), waits up to 15 minutes (the shared suite runs one test at a time, each
// bounded) for tests/runtimes/browser.mjs to set
// `globalThis.report`, prints its lines and exits 1 if a check failed or
// none ran. The page's console and errors are printed as they come.

import puppeteer from "puppeteer-core";

const browser = await puppeteer.launch({
  executablePath: "/usr/bin/chromium",
  args: ["--no-sandbox", "--headless=new"],
});
let failed = 1;
try {
  const page = await browser.newPage();
  page.on("pageerror", (error) => console.error(`page error: ${error.message}`));
  page.on("console", (message) => {
    // The report's lines are printed once, below; the rest as it comes.
    if (message.type() !== "log") console.error(`page ${message.type()}: ${message.text()}`);
  });
  await page.goto(process.argv[2]);
  const handle = await page.waitForFunction(() => globalThis.report, {
    timeout: 15 * 60_000,
    polling: 500,
  });
  const report = await handle.jsonValue();
  console.log(report.lines.join("\n"));
  failed = report.failed;
} finally {
  await browser.close();
}
process.exit(failed > 0 ? 1 : 0);
