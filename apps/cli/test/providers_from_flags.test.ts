import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  type FakeServer,
  start_anthropic_server,
  start_bedrock_server,
  start_gemini_server,
  start_ollama_server,
} from '@lich/testkit';
import { describe, expect, it } from 'vitest';
import { request_body, run_lich, type Sandbox, sandbox_and_server_each } from './helpers.js';

let sandbox: Sandbox;
let server: FakeServer;

sandbox_and_server_each((made) => ({ sandbox, server } = made));

describe('providers from flags and the environment', () => {
  it('makes an OpenAI-compatible provider from --base-url and --model alone (the README example)', async () => {
    server.enqueue({ text: 'hello from qwen' });
    const result = await run_lich(
      ['--base-url', server.base_url, '--model', 'qwen2.5-coder', 'add a --verbose flag'],
      { cwd: sandbox.work_dir, env: sandbox.env },
    );
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('hello from qwen\n');
    expect(request_body<{ model: string }>(server, 0).model).toBe('qwen2.5-coder');
  });

  it('gives advice that works when no provider is found, and a hint for a bare --model', async () => {
    const none = await run_lich(['hi'], { cwd: sandbox.work_dir, env: sandbox.env });
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/--base-url <url> --model <name>/);
    const model_only = await run_lich(['--model', 'gpt-4.1', 'hi'], {
      cwd: sandbox.work_dir,
      env: sandbox.env,
    });
    expect(model_only.code).toBe(2);
    expect(model_only.stderr).toMatch(/kind\/model/);
    expect(server.requests).toHaveLength(0);
  });

  it('sends the key of --provider openai_compat to OPENAI_BASE_URL and keeps LICH_MODEL', async () => {
    server.enqueue({ text: 'ok' });
    const env = {
      ...sandbox.env,
      OPENAI_API_KEY: 'sk-test-only-here',
      OPENAI_BASE_URL: server.base_url,
      LICH_MODEL: 'my-model',
    };
    const result = await run_lich(['--provider', 'openai_compat', 'hi'], {
      cwd: sandbox.work_dir,
      env,
    });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(server.requests[0]?.headers.authorization).toBe('Bearer sk-test-only-here');
    expect(request_body<{ model: string }>(server, 0).model).toBe('my-model');
  });

  it('honours ANTHROPIC_BASE_URL under LICH_PROVIDER=anthropic and OLLAMA_HOST under --provider ollama', async () => {
    const anthropic = await start_anthropic_server({ script: [{ text: 'from claude' }] });
    const ollama = await start_ollama_server({ script: [{ text: 'from llama' }] });
    try {
      const first = await run_lich(['hi'], {
        cwd: sandbox.work_dir,
        env: {
          ...sandbox.env,
          LICH_PROVIDER: 'anthropic',
          ANTHROPIC_API_KEY: 'sk-ant-test',
          ANTHROPIC_BASE_URL: anthropic.base_url,
        },
      });
      expect(first.stdout).toBe('from claude\n');
      expect(anthropic.requests[0]?.headers['x-api-key']).toBe('sk-ant-test');
      const second = await run_lich(['--provider', 'ollama', 'hi'], {
        cwd: sandbox.work_dir,
        env: { ...sandbox.env, OLLAMA_HOST: ollama.url },
      });
      expect(second.stdout).toBe('from llama\n');
      expect(second.code).toBe(0);
    } finally {
      await anthropic.close();
      await ollama.close();
    }
  });

  it('runs lich --provider gemini end to end, and finds GOOGLE_API_KEY in the environment', async () => {
    const gemini = await start_gemini_server({
      script: [
        { text: 'from gemini' },
        { text: 'found by GOOGLE_API_KEY' },
        { kind: 'status', status: 403 },
      ],
    });
    try {
      const env = { ...sandbox.env, GEMINI_API_KEY: 'g-test', GEMINI_BASE_URL: gemini.base_url };
      const flagged = await run_lich(['--provider', 'gemini', 'hi'], {
        cwd: sandbox.work_dir,
        env,
      });
      expect(flagged.stderr).toBe('');
      expect(flagged.stdout).toBe('from gemini\n');
      expect(gemini.requests[0]?.path).toBe(
        '/v1beta/models/gemini-2.5-flash:streamGenerateContent',
      );
      expect(gemini.requests[0]?.headers['x-goog-api-key']).toBe('g-test');
      const google = {
        ...sandbox.env,
        GOOGLE_API_KEY: 'g-google',
        GEMINI_BASE_URL: gemini.base_url,
      };
      const detected = await run_lich(['hi'], { cwd: sandbox.work_dir, env: google });
      expect(detected.stdout).toBe('found by GOOGLE_API_KEY\n');
      expect(gemini.requests[1]?.headers['x-goog-api-key']).toBe('g-google');
      const refused = await run_lich(['hi'], { cwd: sandbox.work_dir, env: google });
      expect(refused.code).not.toBe(0);
      expect(refused.stderr).toContain('GOOGLE_API_KEY');
    } finally {
      await gemini.close();
    }
  });

  it('runs lich --provider bedrock end to end, signed with the AWS variables, and finds them alone', async () => {
    const bedrock = await start_bedrock_server({
      script: [{ text: 'from bedrock' }, { text: 'found by AWS_ACCESS_KEY_ID' }],
    });
    try {
      const env = {
        ...sandbox.env,
        AWS_ACCESS_KEY_ID: 'AKIDTEST',
        AWS_SECRET_ACCESS_KEY: 'secret-test',
        AWS_REGION: 'eu-central-1',
        BEDROCK_BASE_URL: bedrock.url,
      };
      const flagged = await run_lich(['--provider', 'bedrock', 'hi'], {
        cwd: sandbox.work_dir,
        env,
      });
      expect(flagged.stderr).toBe('');
      expect(flagged.stdout).toBe('from bedrock\n');
      expect(bedrock.requests[0]?.path).toBe(
        '/model/anthropic.claude-3-5-sonnet-20240620-v1%3A0/converse-stream',
      );
      expect(bedrock.requests[0]?.headers.authorization).toMatch(
        /^AWS4-HMAC-SHA256 Credential=AKIDTEST\/\d{8}\/eu-central-1\/bedrock\/aws4_request, /,
      );
      const detected = await run_lich(['hi'], { cwd: sandbox.work_dir, env });
      expect(detected.stdout).toBe('found by AWS_ACCESS_KEY_ID\n');
    } finally {
      await bedrock.close();
    }
  });

  it('runs against an Azure OpenAI base URL with AZURE_OPENAI_API_KEY, and finds Azure in the environment', async () => {
    server.enqueue({ text: 'from azure' }, { text: 'found azure' });
    const env = { ...sandbox.env, AZURE_OPENAI_API_KEY: 'azure-key' };
    const base = `${server.url}/openai/deployments/prod-4o`;
    const flagged = await run_lich(['--base-url', base, '--model', 'gpt-4o', 'hi'], {
      cwd: sandbox.work_dir,
      env,
    });
    expect(flagged.stderr).toBe('');
    expect(flagged.stdout).toBe('from azure\n');
    expect(server.requests[0]?.path).toBe('/openai/deployments/prod-4o/chat/completions');
    expect(server.requests[0]?.headers['api-key']).toBe('azure-key');
    const detected = await run_lich(['hi'], {
      cwd: sandbox.work_dir,
      env: { ...env, AZURE_OPENAI_ENDPOINT: server.url, AZURE_OPENAI_DEPLOYMENT: 'prod-4o' },
    });
    expect(detected.stdout).toBe('found azure\n');
    expect(server.requests[1]?.path).toBe('/openai/deployments/prod-4o/chat/completions');
  });

  it('reads --model kind/model as a kind and a model, but not behind --base-url', async () => {
    const anthropic = await start_anthropic_server({ script: [{ text: 'sonnet here' }] });
    try {
      const result = await run_lich(['--model', 'anthropic/claude-test', 'hi'], {
        cwd: sandbox.work_dir,
        env: { ...sandbox.env, ANTHROPIC_API_KEY: 'k', ANTHROPIC_BASE_URL: anthropic.base_url },
      });
      expect(result.stdout).toBe('sonnet here\n');
      expect(request_body<{ model: string }>(anthropic, 0).model).toBe('claude-test');
    } finally {
      await anthropic.close();
    }
    server.enqueue({ text: 'routed' });
    const routed = await run_lich(
      ['--base-url', server.base_url, '--model', 'anthropic/claude-3.5-sonnet', 'hi'],
      { cwd: sandbox.work_dir, env: sandbox.env },
    );
    expect(routed.code).toBe(0);
    expect(request_body<{ model: string }>(server, 0).model).toBe('anthropic/claude-3.5-sonnet');
  });

  it('shows flags as the source of the providers in lich config', async () => {
    await mkdir(join(sandbox.work_dir, '.lich'));
    await writeFile(join(sandbox.work_dir, '.lich', 'config.json'), '{}');
    const result = await run_lich(['-m', 'ollama/qwen2.5-coder', 'config', 'get', 'providers'], {
      cwd: sandbox.work_dir,
      env: sandbox.env,
    });
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject([{ kind: 'ollama', model: 'qwen2.5-coder' }]);
  });
});
