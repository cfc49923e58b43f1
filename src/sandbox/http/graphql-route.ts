import { buildSchema, graphql } from "graphql"
import type { Request, RequestHandler } from "express"
import { accountForSecret } from "../accounts"
import type { SandboxCore } from "../core"
import { createHook, deleteHook, hookView } from "../hooks"
import type { Account } from "../state"

const schema = buildSchema(`
  type Hook {
    id: ID!
    createdAt: String!
    updatedAt: String!
    targetUrl: String!
    enabled: Boolean!
    accountId: String!
  }

  type Query {
    hooks: [Hook!]!
  }

  type Mutation {
    createHook(targetUrl: String!): Hook!
    deleteHook(id: ID!): Boolean!
  }
`)

/** The caller's account, or why there is none: GraphQL reports it as an error of the operation. */
type Context = { account: Account } | { authError: Error }

function contextOf(core: SandboxCore, req: Request): Context {
  try {
    return { account: accountForSecret(core.state, req.header(core.settings.secretHeader), core.settings.secretHeader) }
  } catch (error) {
    return { authError: error as Error }
  }
}

function accountIn(context: Context): Account {
  if ("authError" in context) {
    throw context.authError
  }
  return context.account
}

function resolvers(core: SandboxCore) {
  return {
    hooks: (_args: unknown, context: Context) =>
      [...core.state.hooks.values()].filter((hook) => hook.accountId === accountIn(context).id).map(hookView),
    createHook: (args: { targetUrl: string }, context: Context) => hookView(createHook(core, accountIn(context), args.targetUrl)),
    deleteHook: (args: { id: string }, context: Context) => deleteHook(core, accountIn(context), args.id),
  }
}

/** `POST /graphql`: hook management. Like the real service, errors come back as HTTP 200 with `errors`. */
export function graphqlHandler(core: SandboxCore): RequestHandler {
  const rootValue = resolvers(core)
  return (req, res, next) => {
    const { query, variables, operationName } = (req.body ?? {}) as Record<string, unknown>
    if (typeof query !== "string") {
      res.status(400).json({ errors: [{ message: "Must provide query string." }] })
      return
    }
    graphql({
      schema,
      source: query,
      rootValue,
      contextValue: contextOf(core, req),
      variableValues: variables as Record<string, unknown> | undefined,
      operationName: typeof operationName === "string" ? operationName : undefined,
    })
      .then((result) => res.json(result))
      .catch(next)
  }
}
