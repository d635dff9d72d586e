/**
 * What an operator gets from `npx @lich/gateway-twitch`:
 * tmi.js and the agent, and a bin that starts.
 */
import { gateway_pack_suite } from '../../../tooling/vitest/gateway_pack_suite.js';

gateway_pack_suite({
  platform: 'twitch',
  sdk: 'tmi.js',
  refused_args: ['--channel', 'stream', '--allow-user', '1'],
  refusal: 'TWITCH_USERNAME',
});
