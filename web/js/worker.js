// A Web Worker that hosts a bot, so searching never blocks the page.
// Start it with `new Worker(new URL('sawah-ai/worker', import.meta.url), { type: 'module' })`
// (or the URL of this file) and talk to it with `WorkerBot` from the package.
//
// Messages in: {id, type: 'init', options} once, then {id, type: 'request', request}.
// Messages out: {id, ok: true, response} or {id, ok: false, error}.

import { createBot } from './index.js';

let bot = null;

self.onmessage = async ({ data }) => {
  const { id, type } = data ?? {};
  try {
    if (type === 'init') {
      bot = await createBot(data.options ?? {});
      self.postMessage({ id, ok: true, response: null });
    } else if (type === 'request') {
      if (!bot) throw new Error('the worker has no bot yet: send {type: "init"} first');
      self.postMessage({ id, ok: true, response: bot.request(data.request) });
    } else {
      throw new Error(`unknown message type ${JSON.stringify(type)}; expected init or request`);
    }
  } catch (error) {
    self.postMessage({ id, ok: false, error: String(error?.message ?? error) });
  }
};
