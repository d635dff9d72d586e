/**
 * What an operator gets from `npx @lich/gateway-webhook`: the agent and no platform SDK (nor `ws`,
 * which discord.js brings), and a bin that refuses to start without its secret.
 */
import { gateway_pack_suite } from '../../../tooling/vitest/gateway_pack_suite.js';

gateway_pack_suite({
  platform: 'webhook',
  also_forbidden: ['ws'],
  refused_args: [],
  refusal: 'set LICH_WEBHOOK_SECRET',
});
