import { gateway_cli_suite } from '@lich/testkit';
import { run_cli } from '../src/index.js';

gateway_cli_suite({
  platform: 'twitch',
  run_cli,
  credential: 'TWITCH_USERNAME',
  start_args: ['--channel', 'stream', '--allow-user', '1'],
});
