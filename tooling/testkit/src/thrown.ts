/**
 * What `action` throws, when `accepts` recognises it (e.g. `ProviderError.is_instance`); throws
 * anything else it throws unchanged, and an error when it throws nothing. For tests that look at
 * a thrown error's fields.
 */
export function thrown<E>(action: () => unknown, accepts: (value: unknown) => value is E): E {
  try {
    action();
  } catch (error) {
    if (accepts(error)) return error;
    throw error;
  }
  throw new Error('expected the action to throw');
}
