export { startVerifyServer, type RunningVerifyServer, type VerifyServerOptions } from './server.ts';
export type { WindowStore } from './http/limit.ts';
export type { Verdict, VerdictState, Check } from './verdict/types.ts';
