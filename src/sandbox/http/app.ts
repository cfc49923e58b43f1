import express, { type Express } from "express"
import type { SandboxRuntime } from "../runtime"
import { controlRoutes } from "./control-routes"
import { publicReadCors } from "./cors"
import { errorHandler, unknownRoute } from "./errors"
import { graphqlHandler } from "./graphql-route"
import { payPageRoutes } from "./pay-page-routes"
import { serviceRoutes } from "./service-routes"

export function createApp(runtime: SandboxRuntime): Express {
  const app = express()
  app.disable("x-powered-by")
  app.disable("etag") // every read must reach the sandbox, as polling reaches the real service
  // The control interface comes first: never logged as upstream traffic, never hit by injected faults.
  app.use("/sandbox", controlRoutes(runtime))
  app.use(publicReadCors)
  app.use(runtime.requestLog.middleware)
  app.use(runtime.faults.middleware)
  app.use(express.json())
  app.use(express.urlencoded({ extended: false }))
  app.use(serviceRoutes(runtime))
  app.post("/graphql", graphqlHandler(runtime))
  app.use("/checkout", payPageRoutes(runtime))
  app.use(unknownRoute)
  app.use(errorHandler(runtime.log))
  return app
}
