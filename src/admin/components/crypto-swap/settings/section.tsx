import type { ReactNode } from "react"
import { Container, Heading, Text } from "@medusajs/ui"

type SectionProps = { title: string; description?: string; actions?: ReactNode; children: ReactNode; testId?: string }

/** One settings card in the dashboard's style: a header row, then content. */
export function Section({ title, description, actions, children, testId }: SectionProps) {
  return (
    <Container className="divide-y p-0" data-testid={testId}>
      <div className="flex items-center justify-between gap-x-4 px-6 py-4">
        <div>
          <Heading level="h2">{title}</Heading>
          {description ? (
            <Text size="small" className="text-ui-fg-subtle">
              {description}
            </Text>
          ) : null}
        </div>
        {actions}
      </div>
      <div className="px-6 py-4">{children}</div>
    </Container>
  )
}
