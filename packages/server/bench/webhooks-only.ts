// pnpm bench:webhooks — just the webhook figures (a quick check while tuning the worker).
import { benchDatabases } from './databases.ts';
import { measureWebhooks, renderWebhooks } from './webhooks.ts';

const databases = benchDatabases(process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres');
try {
  console.log(renderWebhooks(await measureWebhooks((name) => databases.make(name))));
} finally {
  await databases.dropAll();
}
