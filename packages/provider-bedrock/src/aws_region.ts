import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { ini_section } from './aws_credentials.js';

/** Where a region was found, for a message about it. */
export interface AwsRegion {
  region: string;
  /** `AWS_REGION`, `AWS_DEFAULT_REGION`, the config file's path, or `default`. */
  from: string;
}

/**
 * The AWS region from the standard places, as the AWS CLI and SDKs read them: `AWS_REGION`, then
 * `AWS_DEFAULT_REGION`, then `region` in the shared config file (`AWS_CONFIG_FILE`, default
 * `~/.aws/config`) at the profile `AWS_PROFILE` (`[default]`, or `[profile <name>]`), else
 * `us-east-1`. Reads that one small file, synchronously, only when the environment names no
 * region; a missing or unreadable file is no error.
 */
export function find_aws_region(env: Readonly<Record<string, string | undefined>>): AwsRegion {
  if (env.AWS_REGION) return { region: env.AWS_REGION, from: 'AWS_REGION' };
  if (env.AWS_DEFAULT_REGION) return { region: env.AWS_DEFAULT_REGION, from: 'AWS_DEFAULT_REGION' };
  const file = env.AWS_CONFIG_FILE || join(env.HOME || homedir(), '.aws', 'config');
  const profile = env.AWS_PROFILE || 'default';
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return { region: 'us-east-1', from: 'default' };
  }
  const section =
    profile === 'default'
      ? ini_section(text, 'default')
      : (ini_section(text, `profile ${profile}`) ?? ini_section(text, profile));
  const region = section?.region?.trim();
  return region ? { region, from: file } : { region: 'us-east-1', from: 'default' };
}
