import { gateway_cli_suite } from '@lich/testkit';
import { run_cli } from '../src/index.js';

gateway_cli_suite({
  platform: 'discord',
  run_cli,
  credential: 'DISCORD_BOT_TOKEN',
  start_args: ['--allow-user', '1'],
});
