import Database from 'better-sqlite3';
import { readStoreContract } from './read-store.contract.js';
import { SqliteReadStore } from './sqlite/sqlite-read-store.js';

readStoreContract('sqlite', async () => new SqliteReadStore(new Database(':memory:')));
