import { Table } from "@medusajs/ui"

export type Paging = { count: number; limit: number; offset: number; onOffset: (offset: number) => void }

/**
 * The dashboard's pagination for a list paged on the server by offset. An offset past the last page
 * (rows resolved since it was loaded) shows the last page, and "previous" goes there.
 */
export function ListPagination({ count, limit, offset, onOffset }: Paging) {
  const pageCount = Math.max(1, Math.ceil(count / limit))
  const lastPage = (pageCount - 1) * limit
  const pageIndex = Math.floor(Math.min(offset, lastPage) / limit)
  return (
    <Table.Pagination
      count={count}
      pageSize={limit}
      pageIndex={pageIndex}
      pageCount={pageCount}
      canPreviousPage={pageIndex > 0}
      canNextPage={pageIndex + 1 < pageCount}
      previousPage={() => onOffset(offset > lastPage ? lastPage : Math.max(0, offset - limit))}
      nextPage={() => onOffset(offset + limit)}
    />
  )
}
