/**
 * A table's column headings. `hidden` heads a last column of buttons: it shows no text, yet screen
 * readers still name the column.
 */
export function TableHead({ columns, hidden }: { columns: readonly string[]; hidden?: string }) {
  return (
    <thead>
      <tr>
        {columns.map((column) => (
          <th key={column} scope="col">
            {column}
          </th>
        ))}
        {hidden && (
          <th scope="col">
            <span className="sr-only">{hidden}</span>
          </th>
        )}
      </tr>
    </thead>
  );
}
