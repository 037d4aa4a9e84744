import { invalidCursor } from '../http/input-rules.ts';
import type { MemberPosition } from './member-store.ts';

const UUID = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';
const CURSOR = new RegExp(`^(\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}Z)\\|(${UUID})$`);

/** Opaque page cursors of the members list: the last member's join time and row id, base64url-encoded. */
export function encodeMemberCursor(member: MemberPosition): string {
  return Buffer.from(`${member.createdAt.toISOString()}|${member.id}`).toString('base64url');
}

/** The position a cursor stands for; 400 before any query for anything this service did not issue. */
export function decodeMemberCursor(cursor: string): MemberPosition {
  const match = CURSOR.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  const [, text = '', id = ''] = match ?? [];
  const createdAt = new Date(text);
  const position = { createdAt, id };
  // only the exact text we encode is ours (an impossible date such as 2026-02-30 prints back as another)
  if (!match || Number.isNaN(createdAt.getTime()) || encodeMemberCursor(position) !== cursor) throw invalidCursor();
  return position;
}
