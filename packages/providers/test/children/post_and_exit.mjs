// Runs `post_json` from the built package against the URL it is given, `count` times, reads each
// body to its end, says what happened on one JSON line and then simply returns: the process must
// exit on its own, at once, with no socket or timer holding it open.
import { post_json } from '../../dist/http/post_json.js';
import { SseParser } from '../../dist/sse_parser.js';

const [url, count = '1', idle_timeout_ms = '60000'] = process.argv.slice(2);
const options = { provider: 'child', model: 'm', idle_timeout_ms: Number(idle_timeout_ms) };
const said = { events: 0, error: null };
try {
  for (let round = 0; round < Number(count); round++) {
    const response = await post_json(url, JSON.stringify({ round }), options);
    const parser = new SseParser();
    await response.each_chunk((bytes) => {
      for (const event of parser.push(bytes)) if (event.data !== '[DONE]') said.events++;
      return false;
    });
  }
} catch (error) {
  said.error = { kind: error.kind, message: error.message };
}
process.stdout.write(`${JSON.stringify({ ...said, at: Date.now() })}\n`);
