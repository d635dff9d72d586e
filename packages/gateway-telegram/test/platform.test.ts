import { gateway_cli_suite } from '@lich/testkit';
import { run_cli } from '../src/index.js';

gateway_cli_suite({
  platform: 'telegram',
  run_cli,
  credential: 'TELEGRAM_BOT_TOKEN',
  start_args: ['--allow-user', '1'],
});
