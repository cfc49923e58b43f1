/// <reference types="vite/client" />

/**
 * The store's backend URL. In a plugin, `import.meta.env` is resolved when the plugin is built (on the
 * plugin author's machine), so the admin bundle reads this global, which the store's admin build defines.
 */
declare const __BACKEND_URL__: string | undefined
