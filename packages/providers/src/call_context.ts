/** Who is being called: named in every `ProviderError` and in the `ChatResult`. */
export interface CallContext {
  /** The provider kind (`openai_compat`, `anthropic`, …), unless a wrapper says otherwise. */
  provider: string;
  /** The model as configured, named in every error and event of the call. */
  model: string;
}
