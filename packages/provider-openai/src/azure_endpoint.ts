import { endpoint_url } from '@lich/providers';

/** The Azure OpenAI `api-version` sent when the config and `AZURE_OPENAI_API_VERSION` name none. */
export const AZURE_DEFAULT_API_VERSION = '2024-10-21';

/**
 * Whether `base_url` is an Azure OpenAI endpoint: a `*.openai.azure.com` or
 * `*.cognitiveservices.azure.com` host, or a path naming a deployment (`/openai/deployments/…`).
 * Never throws (a base that is no URL is not Azure).
 */
export function is_azure_base(base_url: string | undefined): boolean {
  if (base_url === undefined) return false;
  try {
    const url = new URL(
      /^[a-z][a-z0-9+.-]*:\/\//i.test(base_url.trim())
        ? base_url.trim()
        : `http://${base_url.trim()}`,
    );
    return (
      /\.(openai\.azure\.com|cognitiveservices\.azure\.com)$/i.test(url.hostname) ||
      /\/openai\/deployments\/[^/]+/.test(url.pathname)
    );
  } catch {
    return false;
  }
}

/**
 * The chat completions URL of an Azure OpenAI base: a deployment's base
 * (`…/openai/deployments/<name>`) gets `/chat/completions?api-version=…`; the v1 API
 * (`…/openai/v1`) gets `/chat/completions` and no version; a bare resource
 * (`https://<resource>.openai.azure.com`) gets the deployment named `deployment` (the model).
 *
 * Contract: pure; throws a `TypeError` for a base that is no URL at all.
 */
export function azure_chat_url(base_url: string, deployment: string, api_version: string): string {
  let versioned = true;
  const url = new URL(
    endpoint_url(base_url, (path) => {
      const base = path.replace(/\/chat\/completions$/, '');
      if (/\/openai\/v1$/.test(base)) {
        versioned = false;
        return `${base}/chat/completions`;
      }
      if (/\/openai\/deployments\/[^/]+$/.test(base)) return `${base}/chat/completions`;
      return `${base}/openai/deployments/${encodeURIComponent(deployment)}/chat/completions`;
    }),
  );
  if (versioned && !url.searchParams.has('api-version'))
    url.searchParams.set('api-version', api_version);
  return url.toString();
}
