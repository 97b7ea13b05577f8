/** The callback sub-objects (docs/callbacks.md, "The bodies"). */

export interface CallbackItem {
  id: string;
  typeId: string;
  /** Display name of the item type. */
  typeName: string;
}

export interface ItemIdentifier {
  id: string;
  typeId: string;
}

export interface CallbackPolicy {
  id: string;
  name: string;
  penalty: string;
}

export interface CallbackRule {
  id: string;
  name: string;
}

/** An entry of `custom.reportHistory` on review decisions about reported items. */
export interface ReportRecord {
  reason: string | null;
  reporter: ItemIdentifier | null;
}

/** A JSON object, as callback bodies and their `custom` parts are. */
export type JsonBody = { [key: string]: unknown };
