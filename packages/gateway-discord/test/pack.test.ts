/**
 * What an operator gets from `npx @lich/gateway-discord`:
 * discord.js and the agent, and a bin that starts.
 */
import { gateway_pack_suite } from '../../../tooling/vitest/gateway_pack_suite.js';

gateway_pack_suite({
  platform: 'discord',
  sdk: 'discord.js',
  refused_args: ['--allow-user', '1'],
  refusal: 'DISCORD_BOT_TOKEN',
});
