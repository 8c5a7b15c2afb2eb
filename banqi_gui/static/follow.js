// Following a view of the server as it changes: each read (a long poll) waits, up to the
// server's limit, for a version past the last one seen.

import { call, say } from "./api.js";

const RETRY_MS = 3000; // after a failed read
const POLL_MS = 2000; // between reads, if the server gives no version to wait on

const pause = (ms) => new Promise((done) => setTimeout(done, ms));

// Read ``path`` again and again, giving each answer to ``received``; a failed read is said
// and tried again, unless ``stop(error)`` says to give up.
export async function follow(path, received, stop = () => false) {
  let since = null;
  let failed = false;
  for (;;) {
    try {
      const answer = await call("GET", since === null ? path : `${path}?since=${since}`);
      if (failed) say("");
      failed = false;
      received(answer);
      if (Number.isInteger(answer.version)) since = answer.version;
      else await pause(POLL_MS);
    } catch (error) {
      if (stop(error)) return;
      failed = true;
      say(`${error.message} (trying again)`);
      await pause(RETRY_MS);
    }
  }
}
