import { Injectable } from '@nestjs/common';
import { CatalogReader, type HashType } from '../../../catalog/src/index.js';

export interface BankInfo {
  readonly id: string;
  readonly hashType: HashType;
  readonly maxDistance: number | null;
}

const TTL_MS = 1000;

/** The organization's hash banks (type and radius), as the catalog says, cached for a second. */
@Injectable()
export class BankCatalog {
  private readonly cache = new Map<string, { at: number; banks: Promise<BankInfo[]> }>();

  constructor(private readonly catalog: CatalogReader) {}

  banks(orgId: string): Promise<BankInfo[]> {
    const hit = this.cache.get(orgId);
    if (hit && Date.now() - hit.at < TTL_MS) return hit.banks;
    const banks = this.catalog
      .liveEntities(orgId, 'hashBank')
      .then((list) => list.map((b) => ({ id: b.id, hashType: b.hashType, maxDistance: b.maxDistance })));
    this.cache.set(orgId, { at: Date.now(), banks });
    return banks;
  }
}
