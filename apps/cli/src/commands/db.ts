import { parse_command_args } from '../args.js';
import type { Command, CommandContext } from '../context.js';
import { EXIT } from '../exit_codes.js';
import { help_text } from '../help.js';
import { UsageError } from '../usage_error.js';

/** The optional package that holds the migrations; never imported by any other command. */
const STORE_PACKAGE = '@lich/store-postgres';

/** What `lich db` needs of `@lich/store-postgres` (typed here: it is an optional peer). */
interface StorePackage {
  migrate(options: { url: string }): Promise<{ applied: string[]; current: string[] }>;
  redact_url(url: string): string;
}

function is_missing(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  const message = error instanceof Error ? error.message : '';
  return (
    (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') &&
    message.includes(STORE_PACKAGE)
  );
}

async function load_store(context: CommandContext): Promise<StorePackage | null> {
  try {
    const name = STORE_PACKAGE; // a variable: the bundle leaves the optional package outside
    return (await import(name)) as StorePackage;
  } catch (error) {
    if (!is_missing(error)) throw error;
    context.say(
      `${context.err.red('lich:')} lich db needs ${STORE_PACKAGE}. Install it next to lich:`,
    );
    context.say(`  npm i -g ${STORE_PACKAGE}`);
    return null;
  }
}

/**
 * `lich db migrate [--database-url <url>]`: brings a PostgreSQL store's tables up to date with the
 * migrations shipped in `@lich/store-postgres` (imported here only). Exit 0 when done (or nothing
 * was to do), 1 when the database refused, 2 for a usage error or a missing package.
 */
export const command_db: Command = async (context) => {
  const { values, positionals } = parse_command_args('db', context.argv, {
    'database-url': { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help) {
    context.io.stdout.write(`${help_text('db')}\n`);
    return EXIT.OK;
  }
  const [subcommand, ...rest] = positionals;
  if (subcommand !== 'migrate' || rest.length > 0) {
    throw new UsageError(
      subcommand === undefined
        ? 'db needs a subcommand: migrate'
        : `unknown subcommand '${subcommand}'`,
      'db',
    );
  }
  const given = values['database-url'];
  const url = typeof given === 'string' ? given : context.io.env.LICH_DATABASE_URL;
  if (url === undefined || url === '') {
    throw new UsageError('lich db migrate needs --database-url <url> or LICH_DATABASE_URL', 'db');
  }
  if (!/^postgres(?:ql)?:\/\//i.test(url)) {
    throw new UsageError(`--database-url must be a postgres:// URL`, 'db');
  }
  const store = await load_store(context);
  if (store === null) return EXIT.USAGE;
  const where = store.redact_url(url);
  try {
    const result = await store.migrate({ url });
    if (result.applied.length === 0) {
      context.io.stdout.write(`${where} is up to date (${result.current.join(', ')})\n`);
    } else {
      context.io.stdout.write(`applied ${result.applied.join(', ')} to ${where}\n`);
    }
    return EXIT.OK;
  } catch (error) {
    context.say(
      `${context.err.red('lich:')} ${error instanceof Error ? error.message : String(error)}`,
    );
    return EXIT.FAILURE;
  }
};
