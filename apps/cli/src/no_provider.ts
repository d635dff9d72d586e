/** The two lines printed when no provider is configured or found. */
export const NO_PROVIDER_MESSAGE = [
  'no model provider: none is configured and none was found in the environment.',
  'Set OPENAI_API_KEY or ANTHROPIC_API_KEY, start Ollama (OLLAMA_HOST), or pass --base-url <url> --model <name> for an OpenAI-compatible server (lich init writes a config).',
];

/** The second line instead, when `--model` was given with no kind and no base URL. */
export const MODEL_ALONE_HINT =
  'A model name alone names no provider: write it as kind/model (openai/gpt-4.1, anthropic/claude-sonnet-4-5, ollama/llama3.2), or add --base-url <url> or --provider <kind>.';
