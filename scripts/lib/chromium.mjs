// Where the browser tests find Chromium: Debian's package, or CHROMIUM_PATH.
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium"
