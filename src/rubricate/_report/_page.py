"""The report page: one self-contained HTML file (no network, no CDN).

Static sections are rendered here with every piece of user text escaped; the item
table and the item view are drawn by a small script from data embedded as JSON,
inserted with ``textContent`` only, so a submission holding ``</script>`` or HTML
stays text.
"""

from __future__ import annotations

import datetime as dt
import json
from typing import Any

from ._compare import compare_section
from ._data import RunData
from ._sections import criteria_section, esc, human_section, item_rows, overview_section

__all__ = ["render_page"]

_CSS = """
body{font:14px/1.45 system-ui,-apple-system,Segoe UI,sans-serif;margin:0 auto;max-width:1180px;
padding:0 20px 60px;color:#1d2330}
h1{font-size:22px;margin:24px 0 4px}
h2{border-bottom:1px solid #dde;padding-bottom:4px;margin-top:32px}
table{border-collapse:collapse;margin:8px 0;font-size:13px}td,th{border:1px solid #e3e5ea;
padding:3px 8px;text-align:left;vertical-align:top}th{background:#f5f6f8}
table.facts td:first-child{font-weight:600}.grid{display:flex;flex-wrap:wrap;gap:8px}
svg.plot{max-width:100%;height:auto}#items tbody tr{cursor:pointer}
#items tbody tr:hover{background:#eef3fb}#controls{margin:8px 0;display:flex;gap:12px}
#detail{border:1px solid #cdd3df;border-radius:6px;padding:12px;margin:12px 0;background:#fbfcfe}
pre{white-space:pre-wrap;background:#f5f6f8;padding:8px;border-radius:4px;max-height:320px;
overflow:auto}.bad{color:#b3261e}.muted{color:#667}
"""

_JS = """
(function(){
const items=JSON.parse(document.getElementById('items-data').textContent);
const body=document.querySelector('#items tbody');const filter=document.getElementById('filter');
const sort=document.getElementById('sort');const count=document.getElementById('count');
const detail=document.getElementById('detail');
function cell(tr,text,cls){const td=document.createElement('td');td.textContent=text;
if(cls)td.className=cls;tr.appendChild(td);}
function fmt(v){return v===null||v===undefined?'–':(typeof v==='number'?v.toFixed(3):String(v));}
function order(list){const k=sort.value;const s=list.slice();
if(k==='score')s.sort((a,b)=>(a.score??-1)-(b.score??-1));
else if(k==='disagree')s.sort((a,b)=>b.disagree-a.disagree||(a.score??-1)-(b.score??-1));
else if(k==='errors')s.sort((a,b)=>b.errors-a.errors);else s.sort((a,b)=>a.id<b.id?-1:1);return s;}
function draw(){const q=filter.value.toLowerCase();const frag=document.createDocumentFragment();
let n=0;for(const it of order(items)){
if(q&&!(it.id.toLowerCase().includes(q)||it.submission.toLowerCase().includes(q)||
(it.error||'').toLowerCase().includes(q)))continue;n++;
const tr=document.createElement('tr');tr.dataset.id=it.id;cell(tr,it.id);cell(tr,fmt(it.score));
cell(tr,it.passed===null?'–':(it.passed?'yes':'no'));cell(tr,String(it.errors),it.errors?'bad':'');
cell(tr,String(it.disagree));cell(tr,it.error||'','bad');tr.addEventListener('click',()=>show(it));
frag.appendChild(tr);}body.replaceChildren(frag);count.textContent=n+' of '+items.length+' items';}
function add(parent,tag,text,cls){const e=document.createElement(tag);if(text!==undefined)
e.textContent=text;if(cls)e.className=cls;parent.appendChild(e);return e;}
function show(it){detail.replaceChildren();detail.hidden=false;
add(detail,'h3','Item '+it.id+' — score '+fmt(it.score));
add(detail,'h4','Submission');add(detail,'pre',it.submission||'(not in this file)');
const t=add(detail,'table');const h=add(add(t,'thead'),'tr');
for(const c of['criterion','weight','judge','human','confidence','reason','evidence','error'])
add(h,'th',c);const tb=add(t,'tbody');
for(const c of it.criteria){const tr=add(tb,'tr');add(tr,'td',c.key+': '+c.requirement);
add(tr,'td',String(c.weight));add(tr,'td',c.answer,c.human&&c.human!==c.answer?'bad':'');
add(tr,'td',c.human??'–');add(tr,'td',fmt(c.confidence));add(tr,'td',c.reason||'');
add(tr,'td',c.evidence?(c.evidence.action+': “'+c.evidence.quote+'”'):'');
add(tr,'td',c.error||'','bad');}
const raw=it.criteria.map(c=>({criterion:c.key,call:c.call,votes:c.votes,calibration:c.calibration,
escalation:c.escalation}));add(detail,'h4','Judge calls, votes, calibration and escalation');
add(detail,'pre',JSON.stringify(raw,null,2));detail.scrollIntoView({block:'nearest'});}
filter.addEventListener('input',draw);sort.addEventListener('change',draw);draw();})();
"""


def _json_for_script(data: Any) -> str:
    # "<" never reaches the page raw: no "</script>" or "<!--" can end the data block
    return json.dumps(data, ensure_ascii=False).replace("<", "\\u003c").replace(">", "\\u003e")


def render_page(run: RunData, other: RunData | None = None) -> str:
    """The whole report as HTML text."""
    items = item_rows(run)
    when = dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
    sections = [
        overview_section(run),
        criteria_section(run),
        human_section(run),
        compare_section(run, other) if other is not None else "",
    ]
    items_html = (
        "<section id='item-list'><h2>Items</h2><div id='controls'>"
        "<label>Filter <input id='filter' type='search' placeholder='id, text or error'></label>"
        "<label>Sort <select id='sort'><option value='score'>worst score first</option>"
        "<option value='disagree'>most disagreement with people first</option>"
        "<option value='errors'>most errors first</option><option value='id'>id</option>"
        "</select></label><span id='count' class='muted'></span></div>"
        "<div id='detail' hidden></div>"
        "<table id='items'><thead><tr><th scope='col'>id</th><th scope='col'>score</th>"
        "<th scope='col'>passed</th><th scope='col'>errors</th>"
        "<th scope='col'>disagreements</th><th scope='col'>item error</th></tr></thead>"
        "<tbody></tbody></table></section>"
    )
    return (
        "<!doctype html><html lang='en'><head><meta charset='utf-8'>"
        "<meta name='viewport' content='width=device-width,initial-scale=1'>"
        f"<title>rubricate report: {esc(run.source)}</title><style>{_CSS}</style></head><body>"
        f"<h1>rubricate report</h1><p class='muted'>{esc(run.source)} · {esc(when)}</p>"
        + "".join(sections)
        + items_html
        + f"<script type='application/json' id='items-data'>{_json_for_script(items)}</script>"
        + f"<script>{_JS}</script></body></html>"
    )
