/**
 * Which keys a storage read covers: one key id, or a list of them (a partial verdict pass
 * reads its dirty keys in one statement per read, not one per key: issue 38). A read
 * given none covers every key.
 */
export type KeyScope = number | readonly number[];
