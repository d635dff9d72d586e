import { describe, expect, it } from 'vitest';
import { pairing_text_for } from './gateway_texts.js';

describe('pairing_text_for (S5)', () => {
  it('names the command of the gateway that runs', () => {
    expect(pairing_text_for('lich-gateway-telegram')('telegram', 'AB12CD34')).toContain(
      '\n\nlich-gateway-telegram pair AB12CD34\n\n',
    );
    expect(pairing_text_for('lich gateway telegram')('telegram', 'AB12CD34')).toContain(
      '\n\nlich gateway pair telegram AB12CD34\n\n',
    );
  });
});
