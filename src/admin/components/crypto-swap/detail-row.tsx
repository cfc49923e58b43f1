import type { ReactNode } from "react"
import { Copy, Text } from "@medusajs/ui"

type DetailRowProps = {
  label: string
  children: ReactNode
  /** Raw text to copy: addresses and memos are retyped by hand far too often. */
  copy?: string | null
  testId?: string
}

const ROW_COLUMNS = { gridTemplateColumns: "minmax(120px, 1fr) 2fr" }

/** A label/value line in the dashboard's two-column style. */
export function DetailRow({ label, children, copy, testId }: DetailRowProps) {
  return (
    // Inline grid columns: the store's Tailwind build may not scan a plugin's classes for arbitrary values.
    <div className="grid items-start gap-x-4 py-1" style={ROW_COLUMNS} data-testid={testId}>
      <Text size="small" leading="compact" weight="plus" className="text-ui-fg-subtle">
        {label}
      </Text>
      <div className="flex min-w-0 items-center gap-x-1">
        {/* A div, not a paragraph: values include badges and links, which are block elements. */}
        <Text as="div" size="small" leading="compact" className="min-w-0 break-all">
          {children}
        </Text>
        {copy ? <Copy content={copy} className="text-ui-fg-muted shrink-0" /> : null}
      </div>
    </div>
  )
}
