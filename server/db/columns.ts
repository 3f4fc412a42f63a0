/**
 * Column types the features' table declarations share (Kysely's
 * `ColumnType<Select, Insert, Update>`).
 */
import type { ColumnType } from 'kysely';

/** A column the database fills in (`default now()`), read as a Date. */
export type CreatedAt = ColumnType<Date, never, never>;
/** A timestamp written as an SQL expression (`now() + interval …`). */
export type Timestamp = ColumnType<Date, Date | string, Date | string>;
