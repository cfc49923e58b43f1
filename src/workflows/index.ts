export * from "./sync-shift"
export * from "./reconcile-shifts"
export * from "./record-refunds"
