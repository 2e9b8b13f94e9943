// Routes of the paginate area. `/paginate/links?run=&page=` is a listing of
// 4 pages, `[page]` each, linked by a Link header: page 1 by a relative
// target among several links, later pages by an absolute one with several
// rels and quoted parameters; `loop=1` links page 2 back to page 1.
// `/paginate/cursor?cursor=` answers `{ items, next }`, 3 items a page of 8
// in all. `/paginate/stats?run=` gives how many calls `run` made.

import { json, query } from "./http.mjs";

export const routes = {
  "/paginate/links": (req, res, state) => {
    const run = query(req, "run");
    state.set(`paginate:${run}`, (state.get(`paginate:${run}`) ?? 0) + 1);
    const page = Number(query(req, "page") ?? 1);
    const loop = query(req, "loop") === "1" ? "&loop=1" : "";
    const base = `http://${req.headers.host}/paginate/links?run=${run}`;
    const links = [];
    if (page === 1) {
      links.push(`<${base}&page=4>; rel="last"`, `<links?run=${run}&page=2${loop}>; rel=next`);
    } else if (page === 2 && loop) {
      links.push(`<${base}&page=1${loop}>; rel="next"`);
    } else if (page < 4) {
      links.push(`<${base}&page=1>; rel="first prev"; title="a, b; c"`);
      links.push(`<${base}&page=${page + 1}>; REL="Next"`);
    }
    json(res, 200, [page], links.length > 0 ? { link: links.join(", ") } : {});
  },
  "/paginate/cursor": (req, res) => {
    const cursor = Number(query(req, "cursor") ?? 0);
    const items = [];
    for (let item = cursor; item < Math.min(cursor + 3, 8); item++) items.push(item);
    json(res, 200, { items, next: cursor + 3 < 8 ? String(cursor + 3) : null });
  },
  "/paginate/stats": (req, res, state) => {
    json(res, 200, { count: state.get(`paginate:${query(req, "run")}`) ?? 0 });
  },
};
