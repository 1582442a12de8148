// Reports images without alt text and inputs without labels in an HTML file.
const fs = require("fs");
const html = fs.readFileSync(process.argv[2], "utf8");
for (const m of html.matchAll(/<img(?![^>]*\balt=)[^>]*>/g)) console.log("image without alt:", m[0]);
for (const m of html.matchAll(/<input(?![^>]*\baria-label=)[^>]*>/g)) console.log("input to check for a label:", m[0]);
