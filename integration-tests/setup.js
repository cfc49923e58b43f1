// MikroORM keeps entity metadata in a process-wide store; clear it so each test file boots a fresh app.
const { MetadataStorage } = require("@mikro-orm/core")

MetadataStorage.clear()
