import type { EventEmitter } from "node:events"
import type { MedusaContainer } from "@medusajs/framework/types"
import { Modules, OrderWorkflowEvents } from "@medusajs/framework/utils"
import { waitFor } from "./wait-for"

/**
 * Counts the event subscribers' work in flight. Medusa's local event bus starts each subscriber and
 * forgets it, so a test could otherwise only guess when their upstream reads and writes are over.
 * Wraps every subscriber registered on the bus (all are, once the app has booted); call it before the
 * events of interest are published.
 */
export function trackSubscribers(container: MedusaContainer) {
  // The local bus keeps its subscribers on an emitter it does not expose; each returns the promise
  // of its work, which the emitter drops.
  const emitter = (container.resolve(Modules.EVENT_BUS) as unknown as { eventEmitter_?: EventEmitter }).eventEmitter_
  if (!emitter) throw new Error("trackSubscribers needs Medusa's local event bus, which keeps its subscribers on an event emitter")
  let running = 0
  for (const name of emitter.eventNames()) {
    for (const subscriber of emitter.listeners(name) as Array<((data: unknown) => unknown) & { subscriberId?: string }>) {
      const counted = Object.assign(
        (data: unknown) => {
          running += 1
          return Promise.resolve(subscriber(data)).finally(() => {
            running -= 1
          })
        },
        // The bus unsubscribes by this id.
        { subscriberId: subscriber.subscriberId }
      )
      emitter.off(name, subscriber)
      emitter.on(name, counted)
    }
  }
  return {
    /** Resolves once no subscriber is running; events published with a delay must have gone out first. */
    idle: () => waitFor("the event subscribers still running to finish", () => running, (count) => count === 0),
  }
}

/** What the app emitted, through a spy on its event bus's emit (which takes one message or several). */
export function emittedMessages(emitted: jest.SpyInstance): Array<{ name: string; data: any }> {
  return emitted.mock.calls.flatMap(([messages]) => (Array.isArray(messages) ? messages : [messages]))
}

/** The events of one name the app emitted, through a spy on its event bus. */
export function emittedNamed(emitted: jest.SpyInstance, name: string) {
  return emittedMessages(emitted).filter((message) => message.name === name)
}

/** Runs `cancel` with the plugin's order-canceled subscriber unsubscribed, as a lost event would leave it. */
export async function unheardByThePlugin(container: MedusaContainer, cancel: () => Promise<unknown>) {
  const bus = (container.resolve(Modules.EVENT_BUS) as unknown as { eventEmitter_: EventEmitter }).eventEmitter_
  const [subscriber] = bus.listeners(OrderWorkflowEvents.CANCELED).filter((listener) => (listener as { subscriberId?: string }).subscriberId === "crypto-swap-order-canceled")
  if (!subscriber) throw new Error("The plugin's order-canceled subscriber is not registered")
  bus.off(OrderWorkflowEvents.CANCELED, subscriber as (...args: unknown[]) => void)
  try {
    await cancel()
  } finally {
    bus.on(OrderWorkflowEvents.CANCELED, subscriber as (...args: unknown[]) => void)
  }
}
