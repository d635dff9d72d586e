// The @lich/core loop driven by your own model function. Runs offline with `node` or `bun`
// after `pnpm build`: the ChatFn below is scripted; put a call to your model in its place.
import { AgentEmitter, run_conversation } from '../dist/index.js';

/** Your model: (messages, tools, options) => Promise<{ message, finish_reason }>. */
async function chat(messages, tools, options) {
  const question = messages.find((message) => message.role === 'user')?.content ?? '';
  const sum = /(\d+)\s*\+\s*(\d+)/.exec(question);
  const last = messages.at(-1);
  if (last.role === 'tool') {
    const text = `${sum[0]} = ${last.content}.`;
    options?.on_delta?.({ kind: 'text', text }); // stream, if your model can
    return { message: { role: 'assistant', content: text }, finish_reason: 'stop' };
  }
  if (sum && tools.some((tool) => tool.name === 'add')) {
    const args = JSON.stringify({ a: Number(sum[1]), b: Number(sum[2]) });
    const call = { id: 'call_1', name: 'add', arguments: args };
    return {
      message: { role: 'assistant', content: '', tool_calls: [call] },
      finish_reason: 'tool_calls',
    };
  }
  return { message: { role: 'assistant', content: 'I can only add.' }, finish_reason: 'stop' };
}

/** Your tools: execute(name, args, context) => Promise<{ ok, output, duration_ms }>. */
const tools = {
  async execute(name, args) {
    if (name !== 'add')
      return { ok: false, output: `no tool ${name}`, error: 'unknown tool', duration_ms: 0 };
    return { ok: true, output: String(args.a + args.b), duration_ms: 0 };
  },
};

const definitions = [
  {
    name: 'add',
    description: 'Adds two numbers.',
    parameters: {
      type: 'object',
      properties: { a: { type: 'number' }, b: { type: 'number' } },
      required: ['a', 'b'],
    },
  },
];

const emitter = new AgentEmitter();
emitter.on((event) => {
  if (event.type === 'tool_call_start')
    console.error(`tool: ${event.call.name} ${event.call.arguments}`);
});

const outcome = await run_conversation(
  { chat, tools, definitions, emitter },
  [{ role: 'user', content: 'What is 20 + 22?' }],
  { max_turns: 4, system_prompt: 'You are a careful calculator.' },
);
console.log(outcome.final);
if (outcome.stopped_reason !== 'final' || outcome.final !== '20 + 22 = 42.') process.exitCode = 1;
