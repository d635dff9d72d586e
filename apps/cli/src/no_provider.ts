/** The two lines printed when no provider is configured or found. */
export const NO_PROVIDER_MESSAGE = [
  'no model provider: none is configured and none was found in the environment.',
  'Set OPENAI_API_KEY, ANTHROPIC_API_KEY or GEMINI_API_KEY (GOOGLE_API_KEY), start Ollama (OLLAMA_HOST), or pass --base-url <url> --model <name> for an OpenAI-compatible server (lich init writes a config).',
];

/**
 * The second line instead when `OPENAI_BASE_URL` is set but ignored: a keyless local server is
 * found through `LICH_BASE_URL`, not through OpenAI's own variable without a key.
 */
export const BASE_URL_WITHOUT_KEY_HINT =
  'OPENAI_BASE_URL is set but was not used: without OPENAI_API_KEY it names no provider. For a keyless local server use LICH_BASE_URL=<url> (with LICH_MODEL=<name>), or set OPENAI_API_KEY to any value.';

/** The second line instead, when `--model` was given with no kind and no base URL. */
export const MODEL_ALONE_HINT =
  'A model name alone names no provider: write it as kind/model (openai/gpt-4.1, anthropic/claude-sonnet-4-5, gemini/gemini-2.5-flash, ollama/llama3.2), or add --base-url <url> or --provider <kind>.';
