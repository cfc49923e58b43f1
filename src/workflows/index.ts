export * from "./sync-shift"
export * from "./reconcile-shifts"
