import type { RefusedAttachment } from './attachment_intake.js';

/** What the gateway itself says to people (not the model). Every text can be replaced. */
export interface GatewayTexts {
  /** Said once when a sender goes over the rate limit. */
  slow_down: string;
  /** Shown to an unknown user under pairing, with the command the owner runs. */
  pairing: (platform: string, code: string) => string;
  /** Shown when no code can be given now (too many pending, or pairing locked out). */
  pairing_unavailable: string;
  /** Shown (at most once in a while) to an unknown user who already holds a code. */
  pairing_waiting: string;
  /** Sent as the reply when the model failed. */
  error_reply: string;
  /** Sent as the reply when a spending limit stopped the run (the owner is told why apart). */
  budget_reply: string;
  /**
   * Sent to the owner's chat once per budget window when a spending limit stopped a
   * conversation: which one, and the limit's own words.
   */
  budget_owner_notice: (conversation_key: string, reason: string) => string;
  /** Sent to the owner's chat when a tool asks for permission. */
  approval_prompt: (conversation_key: string, title: string, waiting: number) => string;
  /** Said when attachments of a message were not taken (a voice message, a picture too large). */
  attachments_refused: (refused: readonly RefusedAttachment[]) => string;
}

/**
 * The pairing notice naming the command of the gateway that runs, so the owner can type it
 * where the bot was started: `lich gateway pair <platform> <code>` under `lich gateway`, else
 * `<bin> pair <code>` (`lich-gateway-telegram pair AB12CD34`).
 */
export function pairing_text_for(program: string): GatewayTexts['pairing'] {
  return (platform, code) => {
    const command = program.startsWith('lich gateway')
      ? `lich gateway pair ${platform} ${code}`
      : `${program} pair ${code}`;
    return (
      `I don't know you yet. To let you in, the owner of this bot runs:\n\n` +
      `${command}\n\nThe code works for one hour.`
    );
  };
}

/** What the gateway says (in English) where `GatewayTexts` overrides nothing. */
export const DEFAULT_TEXTS: GatewayTexts = {
  slow_down: 'Slow down a little: I will answer again in a moment.',
  pairing: (platform, code) =>
    `I don't know you yet. To let you in, the owner of this bot runs:\n\n` +
    `lich gateway pair ${platform} ${code}\n\nThe code works for one hour.`,
  pairing_unavailable: 'I cannot take new pairing requests right now. Try again later.',
  pairing_waiting:
    'Your pairing code is already waiting for the owner of this bot. I will answer once they let you in.',
  error_reply: 'Sorry, I could not answer that: the model failed. Please try again.',
  budget_reply:
    'Sorry, I have reached my spending limit for now, so I cannot answer this. Please try again later.',
  budget_owner_notice: (conversation_key, reason) =>
    `A spending limit stopped the conversation ${conversation_key}: ${reason}. ` +
    `The sender was told to try again later; you are told once for this limit and period.`,
  approval_prompt: (conversation_key, title, waiting) =>
    `Permission asked in ${conversation_key}: ${title}\n` +
    `Reply y (allow once), a (allow always) or n (reject).` +
    (waiting > 1 ? ` ${waiting - 1} more request(s) wait after this one.` : ''),
  attachments_refused: (refused) =>
    refused.length === 1
      ? `Sorry, I could not take ${refused[0]?.what}: ${refused[0]?.why}.`
      : `Sorry, I could not take everything you sent:\n${refused
          .map(({ what, why }) => `- ${what}: ${why}`)
          .join('\n')}`,
};
