let package_version: string | undefined;

/** This package's version, read once from its package.json. */
export async function own_version(): Promise<string> {
  if (package_version === undefined) {
    // through the package's exports, so it stays right when this code is bundled elsewhere
    const { createRequire } = await import('node:module');
    const manifest = createRequire(import.meta.url)('@lich/agent/package.json') as {
      version: string;
    };
    package_version = manifest.version;
  }
  return package_version;
}
