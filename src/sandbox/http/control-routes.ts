import express, { Router } from "express"
import {
  clockAdvanceSchema,
  depositSimulationSchema,
  faultSchema,
  parseRequest,
  settingsUpdateSchema,
  statusChangeSchema,
} from "../request-schemas"
import type { SandboxRuntime } from "../runtime"
import { settingsView } from "../settings"
import { errorHandler, unknownRoute } from "./errors"

/** `/sandbox/...`: the sandbox's own control interface (no auth, never logged, never faulted). */
export function controlRoutes(runtime: SandboxRuntime): Router {
  const router = Router()
  router.use(express.json())
  const clockView = () => ({ now: runtime.clock.now().toISOString() })

  router.post("/shifts/:id/deposit", (req, res) => {
    res.json(runtime.simulateDeposit(req.params.id, parseRequest(depositSimulationSchema, req.body)))
  })

  router.post("/shifts/:id/status", (req, res) => {
    res.json(runtime.changeStatus(req.params.id, parseRequest(statusChangeSchema, req.body)))
  })

  router.get("/clock", (_req, res) => {
    res.json(clockView())
  })

  router.post("/clock", (req, res) => {
    runtime.advanceClock(parseRequest(clockAdvanceSchema, req.body).advanceSeconds)
    res.json(clockView())
  })

  router.get("/faults", (_req, res) => {
    res.json(runtime.faults.list())
  })

  router.post("/faults", (req, res) => {
    res.status(201).json(runtime.faults.add(parseRequest(faultSchema, req.body)))
  })

  router.delete("/faults", (_req, res) => {
    runtime.faults.clear()
    res.status(204).end()
  })

  router.delete("/faults/:id", (req, res) => {
    res.status(runtime.faults.remove(req.params.id) ? 204 : 404).end()
  })

  router.get("/config", (_req, res) => {
    res.json(settingsView(runtime.settings))
  })

  router.post("/config", (req, res) => {
    res.json(runtime.configure(parseRequest(settingsUpdateSchema, req.body)))
  })

  router.get("/notifications", (_req, res) => {
    res.json(runtime.state.deliveries)
  })

  router.get("/requests", (_req, res) => {
    res.json(runtime.requestLog.entries)
  })

  router.delete("/requests", (_req, res) => {
    runtime.requestLog.clear()
    res.status(204).end()
  })

  router.post("/reset", (_req, res) => {
    runtime.reset()
    res.status(204).end()
  })

  router.use(unknownRoute)
  router.use(errorHandler(runtime.log))
  return router
}
