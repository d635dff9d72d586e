import {
  AGENT_OPTIONS,
  CONTINUE_OPTIONS,
  check_session_flags,
  OUTPUT_OPTIONS,
  parse_command_args,
  string_option,
} from '../args.js';
import { chat_loop } from '../chat_loop.js';
import { load_cli_config, model_given } from '../cli_config.js';
import type { Command } from '../context.js';
import { EXIT } from '../exit_codes.js';
import { help_text } from '../help.js';
import { make_agent, report_no_provider } from '../make_agent.js';
import { output_settings } from '../output_settings.js';
import { newest_session } from '../session_ids.js';

/** `lich chat [--resume <id>]`. */
export const command_chat: Command = async (context) => {
  const { values, positionals } = parse_command_args('chat', context.argv, {
    ...AGENT_OPTIONS,
    ...OUTPUT_OPTIONS,
    ...CONTINUE_OPTIONS,
    resume: { type: 'string' },
  });
  if (values.help) {
    context.io.stdout.write(`${help_text('chat')}\n`);
    return EXIT.OK;
  }
  check_session_flags('chat', values);
  const { UsageError } = await import('../usage_error.js');
  const output = output_settings('chat', values);
  if (output.format !== 'text') {
    throw new UsageError(
      `chat prints text; --output-format ${output.format} is for lich "task"`,
      'chat',
    );
  }
  if (positionals.length > 0) {
    throw new UsageError(
      `chat takes no task; type it at the prompt (or: lich "${positionals.join(' ')}")`,
      'chat',
    );
  }
  const loaded = await load_cli_config(context, 'chat', values, {
    detect_providers: true,
    agent_flags: true,
  });
  if (loaded === null) return EXIT.USAGE;
  if (report_no_provider(context, loaded.config, model_given(context, values))) return EXIT.USAGE;
  const agent = await make_agent(context, loaded.config, output, values.trust === true);
  try {
    let resume = string_option(values.resume);
    if (resume === undefined && values.continue === true) {
      resume = (await newest_session(loaded.config.session_dir))?.path;
      if (resume === undefined) {
        context.warn(`no session to continue in ${loaded.config.session_dir}; starting a new one`);
      }
    }
    return await chat_loop(context, {
      agent,
      ...(resume === undefined ? {} : { resume }),
      no_session: values['no-session'] === true,
      command: 'chat',
      show_reasoning: values['show-reasoning'] === true,
      approval_flags: values,
      output,
    });
  } finally {
    await agent.close();
  }
};
