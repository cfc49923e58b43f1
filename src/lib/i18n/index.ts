export * from "./catalogue"
export * from "./negotiate"
