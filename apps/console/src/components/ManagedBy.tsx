/** Where a queue or the SSO settings are changed: the organization's configuration file, the console, or nowhere (built-in). */
export type ManagedBy = 'file' | 'console' | 'builtin';

/** A badge saying who manages an entity; a file-managed one names the file where it is known. */
export function ManagedBadge({ managedBy, file }: { managedBy: ManagedBy; file: string | null }) {
  if (managedBy === 'file') {
    return (
      <span className="tag warn" title="Defined by the organization's configuration file">
        File{file ? `: ${file}` : ''}
      </span>
    );
  }
  return <span className="tag">{managedBy === 'console' ? 'Console' : 'Built-in'}</span>;
}

/** Why the console does not offer to change what the file manages, and where to change it instead. */
export function fileManagedExplanation(what: string, file: string | null, section: 'queues' | 'sso'): string {
  const where = file ? `the configuration file ${file}` : "the organization's configuration file";
  return `${what} managed by ${where}: change it there and run warden apply (or hand it to the console with management: { ${section}: console } in that file).`;
}
