/**
 * A picture from the TUI, in a real terminal (tmux): `@shot.png` shows as a chip under the editor
 * and the picture reaches the model (#35).
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type FakeServer, TINY_PNG_BASE64, tiny_png } from '@lich/testkit';
import { describe, expect, it } from 'vitest';
import { BIN, openai_env, type Sandbox, sandbox_and_server_each } from './helpers.js';
import { start_lich, TmuxTerminal, tmux_or_skip } from './tmux.js';

const TMUX = await tmux_or_skip();

let sandbox: Sandbox;
let server: FakeServer;
sandbox_and_server_each((made) => ({ sandbox, server } = made), { 'notes.txt': 'owls\n' });

type Body = { messages: { role: string; content: unknown }[] };

describe.skipIf(TMUX.skip)(`pictures in lich tui${TMUX.reason}`, () => {
  it('@shot.png shows as a chip, and the picture goes with the prompt', async () => {
    await writeFile(join(sandbox.work_dir, 'shot.png'), tiny_png());
    const terminal = new TmuxTerminal();
    try {
      server.enqueue({ text: 'One red pixel.' });
      const env = { ...openai_env(sandbox, server.base_url), TERM: 'xterm-256color' };
      await start_lich(terminal, { bin: BIN, env, args: [], cwd: sandbox.work_dir, rows: 30 });
      await terminal.wait_for((text) => text.includes('ask anything'), 'the prompt');
      await terminal.type('what is in @shot.png');
      // a space ends the word (and closes the completion list)
      await terminal.type(' ?');
      await terminal.wait_for(
        (text) => text.includes('[▣ shot.png]') && text.includes('what is in @shot.png ?'),
        'the chip',
      );
      await terminal.keys('Enter');
      await terminal.wait_for((text) => text.includes('One red pixel.'), 'the answer');
      const user = (server.requests[0]?.body as Body | undefined)?.messages.at(-1);
      expect(user).toEqual({
        role: 'user',
        content: [
          { type: 'text', text: 'what is in @shot.png ?' },
          { type: 'image_url', image_url: { url: `data:image/png;base64,${TINY_PNG_BASE64}` } },
        ],
      });
    } finally {
      await terminal.kill();
    }
  }, 90_000);

  it('a picture dropped on the terminal (its path pasted) from outside the work dir is sent', async () => {
    const outside = join(sandbox.home, 'Desktop shot.png');
    await writeFile(outside, tiny_png());
    const terminal = new TmuxTerminal();
    try {
      server.enqueue({ text: 'A pixel from the desktop.' });
      const env = { ...openai_env(sandbox, server.base_url), TERM: 'xterm-256color' };
      await start_lich(terminal, { bin: BIN, env, args: [], cwd: sandbox.work_dir, rows: 30 });
      await terminal.wait_for((text) => text.includes('ask anything'), 'the prompt');
      await terminal.type('look: ');
      await terminal.paste(`'${outside}'`);
      await terminal.wait_for((text) => text.includes('[▣ Desktop shot.png]'), 'the chip');
      await terminal.keys('Enter');
      await terminal.wait_for((text) => text.includes('A pixel from the desktop.'), 'the answer');
      const user = (server.requests[0]?.body as Body | undefined)?.messages.at(-1) as {
        content: { type: string }[];
      };
      expect(user.content.map((part) => part.type)).toEqual(['text', 'image_url']);
      expect(user.content[1]).toEqual({
        type: 'image_url',
        image_url: { url: `data:image/png;base64,${TINY_PNG_BASE64}` },
      });
    } finally {
      await terminal.kill();
    }
  }, 90_000);
});
