/**
 * What an operator gets from `npx @lich/gateway-telegram`:
 * grammy and the agent, and a bin that starts.
 */
import { gateway_pack_suite } from '../../../tooling/vitest/gateway_pack_suite.js';

gateway_pack_suite({
  platform: 'telegram',
  sdk: 'grammy',
  refused_args: ['--allow-user', '1'],
  refusal: 'TELEGRAM_BOT_TOKEN',
});
