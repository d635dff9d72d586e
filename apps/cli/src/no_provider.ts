/** The two lines printed when no provider is configured or found. */
export const NO_PROVIDER_MESSAGE = [
  'no model provider: none is configured and none was found in the environment.',
  'Set OPENAI_API_KEY or ANTHROPIC_API_KEY, start Ollama (OLLAMA_HOST), or pass --provider/--model/--base-url (lich init writes a config).',
];
