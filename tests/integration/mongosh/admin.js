// Everyday admin commands, typed into mongosh as an operator would (fed to its REPL on standard
// input, so `show ...` works). Each check prints one "CHECK <name> <json>" line that
// mongosh.test.mjs compares with what mongod answers.
const out = (name, value) => print("CHECK " + name + " " + EJSON.stringify(value, {relaxed: true}));
db.orders.insertMany([{_id: 1, item: "tea", qty: 2}, {_id: 2, item: "jam", qty: 5}]);
db.orders.createIndex({item: 1});
show dbs
show collections
out("stats", {db: db.stats().db, collections: db.stats().collections, objects: db.stats().objects})
out("collStats", {ns: db.orders.stats().ns, count: db.orders.stats().count, nindexes: db.orders.stats().nindexes})
out("indexes", db.orders.getIndexes().map((i) => i.name))
out("explain", db.orders.find({item: "tea"}).explain().queryPlanner.winningPlan.inputStage.stage)
const ss = db.serverStatus(); out("serverStatus", {ok: ss.ok, hasConnections: ss.connections.current > 0, hasOpcounters: ss.opcounters.insert >= 1})
out("currentOp", db.currentOp().inprog.some((op) => op.command && op.command.pipeline && "$currentOp" in op.command.pipeline[0]))
out("validate", (({valid, nrecords, nIndexes, keysPerIndex}) => ({valid, nrecords, nIndexes, keysPerIndex}))(db.orders.validate({full: true})))
out("setProfilingLevel", (({was, slowms}) => ({was, slowms}))(db.setProfilingLevel(0, {slowms: 50})))
out("profilingStatus", db.getProfilingStatus().slowms)
show profile
out("profileOn", db.setProfilingLevel(2).was)
db.bulk.insertMany(Array.from({length: 30000}, (_, i) => ({i})))
show profile
out("profileOff", db.setProfilingLevel(0).was)
out("profiled", db.system.profile.countDocuments({op: "insert", ns: "shop.bulk", ninserted: 30000}))
out("killOp", db.killOp(987654321).ok)
out("fsyncLock", [db.fsyncLock().lockCount, db.fsyncUnlock().lockCount])
db.setLogLevel(1, "command")
out("logLevel", db.getLogComponents().command.verbosity)
db.setLogLevel(-1, "command")
