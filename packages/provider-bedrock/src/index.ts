export { AWS_CREDENTIAL_HINT } from './aws_credentials.js';
export { create_bedrock_provider } from './bedrock_provider.js';
export { BEDROCK_KIND, type BedrockOptions } from './bedrock_settings.js';
export { type AwsCredentials, sign_sigv4 } from './sign_sigv4.js';
