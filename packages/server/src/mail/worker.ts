import type { Task } from 'graphile-worker';
import type { Clock } from '../clock.ts';
import type { Config } from '../config.ts';
import type { Db } from '../db/database.ts';
import type { Logger } from '../log.ts';
import type { ServiceSecrets } from '../system/service-secret.ts';
import type { Teardown } from '../system/teardown.ts';
import { watchRelayerBalance, type BalanceReading } from './balance.ts';
import { startMailCatcher } from './catcher.ts';
import { createMailer } from './mailer.ts';
import { notifyTasks } from './notify.task.ts';
import { MAIL_SEND_TASK } from './outbox-store.ts';
import { bodySealer } from './seal.ts';
import { MAIL_OFF_REASON } from './service.ts';
import { sendTask } from './send.task.ts';

interface MailWorkerDeps {
  config: Config;
  db: Db;
  clock: Clock;
  log: Logger;
  chainHealth: { latest(): BalanceReading };
  chain: { account: { address: string } };
  secrets: ServiceSecrets;
}

/**
 * A worker's mail: the SMTP transport (SMTP_URL, or a MailDev started here on the embedded default), the jobs that
 * compose and send, and the operator's low-balance watch. With mail off the jobs run and send nothing.
 */
export async function startMailWorker(
  deps: MailWorkerDeps,
  stack: Teardown,
): Promise<{ tasks: Record<string, Task>; inboxUrl?: string }> {
  const { config, db, clock, log } = deps;
  const sealer = bodySealer(deps.secrets);
  const notify = notifyTasks({ db, clock, log, sealer, publicBaseUrl: config.publicBaseUrl });
  if (config.mail.mode === 'off') {
    log.warn({ component: 'mail' }, MAIL_OFF_REASON);
    const idle: Task = async () => undefined;
    return { tasks: Object.fromEntries([MAIL_SEND_TASK, ...Object.keys(notify)].map((name) => [name, idle])) };
  }
  const catcher = config.mail.mode === 'catcher' ? await startMailCatcher(config.dataDir) : undefined;
  if (catcher) stack.push(catcher.stop);
  const mailer = createMailer(catcher?.smtpUrl ?? config.mail.smtpUrl!.reveal(), config.mail.from);
  stack.push(async () => mailer.close());
  if (config.mail.operatorEmail) {
    const minimumWei = config.chain.minBalanceWei;
    const read = () => deps.chainHealth.latest();
    const watch = { operatorEmail: config.mail.operatorEmail, address: deps.chain.account.address, minimumWei };
    stack.push(watchRelayerBalance({ db, clock, log, sealer, read }, watch));
  }
  const tasks = { [MAIL_SEND_TASK]: sendTask({ db, mailer, sealer, clock, log }), ...notify };
  return catcher ? { tasks, inboxUrl: catcher.inboxUrl } : { tasks };
}
