"""The page's style sheet and script, inlined into every report (no network).

The script draws the item table and the item view from the JSON block
``#items-data``. It writes user text with ``textContent`` only (never
``innerHTML``), so a submission holding HTML or ``</script>`` stays text. The
table draws a page of rows at a time, so a 10,000-item run opens quickly.
"""

from __future__ import annotations

__all__ = ["CSS", "JS"]

CSS = """
body{font:14px/1.45 system-ui,-apple-system,Segoe UI,sans-serif;margin:0 auto;max-width:1240px;
padding:0 20px 60px;color:#1d2330}
h1{font-size:22px;margin:24px 0 4px}h2{border-bottom:1px solid #dde;padding-bottom:4px;
margin-top:32px}h3{margin:18px 0 6px}nav a{margin-right:12px}
table{border-collapse:collapse;margin:8px 0;font-size:13px}
td,th{border:1px solid #e3e5ea;padding:3px 8px;text-align:left;vertical-align:top}
thead th{background:#f5f6f8}tbody th{font-weight:600;background:#fafbfc}
caption{text-align:left;font-weight:600;padding:2px 0}td.num{text-align:right}
.grid{display:flex;flex-wrap:wrap;gap:16px;align-items:flex-start}.scroll{overflow-x:auto}
svg.plot{max-width:100%;height:auto}
#items th[data-key]{cursor:pointer;user-select:none}
#items th[aria-sort=ascending]::after{content:" ▲"}
#items th[aria-sort=descending]::after{content:" ▼"}
#items tbody tr{cursor:pointer}#items tbody tr:hover,#items tbody tr.open{background:#eef3fb}
#items td button{all:unset;color:#1f4f9a;text-decoration:underline;cursor:pointer}
#controls{margin:8px 0;display:flex;flex-wrap:wrap;gap:12px;align-items:center}
#controls input[type=number]{width:5em}
#detail{border:1px solid #cdd3df;border-radius:6px;padding:12px;margin:12px 0;background:#fbfcfe}
#detail table{width:100%}#detail table.kv th{width:13em}
pre{white-space:pre-wrap;word-break:break-word;background:#f5f6f8;
padding:8px;border-radius:4px;max-height:360px;overflow:auto;margin:4px 0}
.bad{color:#b3261e}.muted{color:#667}.ok{color:#1e7b34}
details{margin:6px 0}summary{cursor:pointer}
ol.conv{list-style:none;margin:4px 0;padding:0}
.msg{border-left:3px solid #cdd3df;margin:6px 0;padding:2px 10px}
.msg.user{border-color:#4a78c2}.msg.assistant{border-color:#1e7b34}.msg.tool{border-color:#b07d12}
.media{display:flex;flex-wrap:wrap;gap:10px}.media figure{margin:0;max-width:200px}
.media img{display:block;max-width:192px;max-height:192px;border:1px solid #cdd3df}
.media figcaption{font-size:12px;color:#555;word-break:break-word}
.msg.system{border-color:#888}.msg .role{font-weight:600;font-size:12px;color:#555}
.msg .text{white-space:pre-wrap;word-break:break-word}.msg details{margin:2px 0}
.msg summary{font-family:monospace;font-size:12px}
ul.verdicts{font-size:12px;margin:2px 0 6px;padding-left:18px}
"""

JS = r"""
(function(){
'use strict';
const data=JSON.parse(document.getElementById('items-data').textContent);
const items=data.items,PAGE=250;
const $=id=>document.getElementById(id);
const body=document.querySelector('#items tbody'),detail=$('detail'),count=$('count');
const more=$('more');
let shown=PAGE,sortKey='worst',sortDir=1,openId=null;
function fmt(v,d){if(v===null||v===undefined)return '–';
if(typeof v==='number')return v.toFixed(d===undefined?3:d);return String(v);}
function val(v){return typeof v==='number'&&Number.isInteger(v)?String(v):fmt(v);}
function el(parent,tag,text,cls){const e=document.createElement(tag);
if(text!==undefined&&text!==null)e.textContent=String(text);if(cls)e.className=cls;
if(parent)parent.appendChild(e);return e;}
function num(v,missing){return v===null||v===undefined?missing:v;}
const orders={
worst:(a,b)=>num(a.score,-1)-num(b.score,-1)||num(b.people,0)-num(a.people,0)||b.split-a.split,
disagree:(a,b)=>num(b.people,0)-num(a.people,0)||b.split-a.split||num(a.score,-1)-num(b.score,-1),
errors:(a,b)=>(b.errors+(b.error?1:0))-(a.errors+(a.error?1:0)),
delta:(a,b)=>Math.abs(num(b.delta,0))-Math.abs(num(a.delta,0)),
id:(a,b)=>a.id<b.id?-1:(a.id>b.id?1:0),
score:(a,b)=>num(a.score,-1)-num(b.score,-1),
passed:(a,b)=>num(a.passed,-1)-num(b.passed,-1),
people:(a,b)=>num(a.people,-1)-num(b.people,-1),
split:(a,b)=>a.split-b.split,
minconf:(a,b)=>num(a.minconf,2)-num(b.minconf,2),
};
function matches(it){
const q=$('filter').value.trim().toLowerCase();
if(q&&!(it.id.toLowerCase().includes(q)||(it.submission||'').toLowerCase().includes(q)||
(it.error||'').toLowerCase().includes(q)))return false;
const p=$('f-passed').value;
if(p==='yes'&&it.passed!==true)return false;if(p==='no'&&it.passed!==false)return false;
if(p==='unknown'&&it.passed!==null)return false;
const e=$('f-errors').value,bad=it.errors>0||!!it.error;
if(e==='with'&&!bad)return false;if(e==='without'&&bad)return false;
const lo=parseFloat($('f-min').value),hi=parseFloat($('f-max').value);
if(!isNaN(lo)&&!(it.score!==null&&it.score>=lo))return false;
if(!isNaN(hi)&&!(it.score!==null&&it.score<=hi))return false;
return true;}
function row(it){const tr=el(null,'tr');tr.dataset.id=it.id;if(it.id===openId)tr.className='open';
const b=el(el(tr,'td'),'button',it.id);b.type='button';
b.setAttribute('aria-label','open item '+it.id);
el(tr,'td',fmt(it.score),'num');
if(data.compare)el(tr,'td',it.delta===undefined?'–':(it.delta>0?'+':'')+fmt(it.delta),'num');
el(tr,'td',it.passed===null?'–':(it.passed?'yes':'no'));
el(tr,'td',String(it.errors),it.errors?'num bad':'num');
if(data.labels)el(tr,'td',val(it.people),it.people?'num bad':'num');
if(data.ensemble)el(tr,'td',String(it.split),'num');el(tr,'td',fmt(it.minconf),'num');
el(tr,'td',it.error||'','bad');tr.addEventListener('click',()=>show(it));return tr;}
let current=[];
function draw(){const cmp=orders[sortKey];
current=items.filter(matches).sort((a,b)=>sortDir*cmp(a,b));
const frag=document.createDocumentFragment();
for(const it of current.slice(0,shown))frag.appendChild(row(it));
body.replaceChildren(frag);
count.textContent=current.length+' of '+items.length+' items'+
(current.length>shown?' ('+shown+' shown)':'');
more.hidden=current.length<=shown;
for(const th of document.querySelectorAll('#items th[data-key]')){
th.setAttribute('aria-sort',th.dataset.key===sortKey?(sortDir>0?'ascending':'descending'):'none');}}
function reset(){shown=PAGE;draw();}
function kv(parent,obj){const t=el(parent,'table',undefined,'kv');const tb=el(t,'tbody');
for(const[k,v]of Object.entries(obj)){if(v===null||v===undefined)continue;const tr=el(tb,'tr');
el(tr,'th',k);el(tr,'td',typeof v==='object'?JSON.stringify(v):val(v));}return t;}
function probs(p){return Object.entries(p).map(([k,v])=>k+' '+fmt(v)).join(' · ');}
function said(v){return (v.selection?v.selection.label:
(v.scale_score?String(v.scale_score.score):(v.verdict||'–')))+
(v.confidence!==undefined&&v.confidence!==null?' ('+fmt(v.confidence)+')':'');}
function vote(v){return v.judge_id+': '+(v.error?'failed: '+v.error:said(v));}
function evidence(e){return '“'+e.quote+'” '+(e.found?'found':'not found')+' (similarity '+
fmt(e.similarity,2)+', needs '+fmt(e.threshold,2)+(e.why?'; '+e.why:'')+'); '+e.action+
(e.raw_verdict?'; the judge said '+e.raw_verdict:'');}
function calibration(c){const raw=c.raw_selection?c.raw_selection.label:(c.raw_verdict||'–');
return 'the judge said '+raw+'; calibrated probability '+fmt(c.p_calibrated)+
(c.threshold!==undefined&&c.threshold!==null?' against threshold '+fmt(c.threshold,2):'')+
(c.changed?'; answer changed':'; answer kept')+(c.method?' ['+c.method+']':'');}
function escalation(x){return 'first '+vote(x.first)+'; then '+(x.second?vote(x.second):'none')+
'; counted: '+x.counted+' (below confidence '+fmt(x.below_confidence,2)+')';}
function call(c){return Object.entries(c).map(([k,v])=>k+' '+val(v)).join(' · ');}
function votes(parent,list){const t=el(parent,'table');const h=el(el(t,'thead'),'tr');
for(const c of['judge','weight','answer','confidence','reason','error'])el(h,'th',c);
const tb=el(t,'tbody');for(const v of list){const tr=el(tb,'tr');el(tr,'td',v.judge_id);
el(tr,'td',val(v.weight));el(tr,'td',v.selection?v.selection.label:(v.verdict||'–'));
el(tr,'td',fmt(v.confidence));el(tr,'td',v.reason||'');el(tr,'td',v.error||'','bad');}}
function raw(parent,calls){for(const c of calls){
el(parent,'div',(c.purpose?c.purpose+' · ':'')+c.judge+(c.model?' ('+c.model+')':'')+
(c.latency_s!==undefined?' · '+fmt(c.latency_s)+' s':'')+
(c.probabilities?' · '+probs(c.probabilities):''),'muted');
el(parent,'pre',c.raw||'(empty answer)');if(c.reasoning){el(parent,'div','reasoning','muted');
el(parent,'pre',c.reasoning);}}}
function criterion(parent,c){const d=el(parent,'details');d.className='crit';
const s=el(d,'summary');el(s,'strong',c.key);el(s,'span',' · '+c.ans,c.ans==='error'?'bad':'');
if(c.human!==undefined)el(s,'span',' · people: '+c.human,c.human!==c.ans?'bad':'ok');
if(c.conf!==undefined)el(s,'span',' · confidence '+fmt(c.conf));
el(d,'p',c.req+' (weight '+val(c.w)+(c.scope?', scope '+c.scope:'')+')','muted');
const facts={};if(c.reason)facts.reason=c.reason;if(c.error)facts.error=c.error+
(c.cat?' ['+c.cat+']':'');if(c.policy)facts['failure policy counted']=c.policy;
if(c.probs)facts.probabilities=probs(c.probs);
if(c.agree!==undefined)facts['ensemble agreement']=fmt(c.agree);
if(c.quotes)facts['quoted evidence']=c.quotes.join(' | ');
if(c.evidence)facts['evidence check']=evidence(c.evidence);
if(c.calibration)facts.calibration=calibration(c.calibration);
if(c.escalation)facts.escalation=escalation(c.escalation);
if(c.call)facts['judge call']=call(c.call);if(c.notes)facts.notes=c.notes;
kv(d,facts);if(c.votes){el(d,'h5','Votes');votes(d,c.votes);}
if(c.turns){el(d,'h5','Per turn');const t=el(d,'table',undefined,'turns');
const h=el(el(t,'thead'),'tr');for(const x of['turn','messages','answer','reason'])el(h,'th',x);
const tb=el(t,'tbody');for(const x of c.turns){const tr=el(tb,'tr');el(tr,'td',String(x.turn));
el(tr,'td','#'+x.first+(x.last!==x.first?' to #'+x.last:''));
el(tr,'td',x.ans,x.ans==='error'?'bad':'');el(tr,'td',x.error||x.reason||'',x.error?'bad':'');}}
if(c.reasoning){el(d,'h5','Reasoning');el(d,'pre',c.reasoning);}
if(c.raw){el(d,'h5','Raw judge output');raw(d,c.raw);}return d;}
function folded(parent,summary,text,cls){const d=el(parent,'details',undefined,cls);
el(d,'summary',summary);el(d,'pre',text);return d;}
function conversation(parent,it){const notes={},last={};
for(const c of it.crit){for(const t of(c.turns||[])){(notes[t.turn]=notes[t.turn]||[]).push(
[c.key+': '+t.ans+(t.error?' ('+t.error+')':(t.reason?' · '+t.reason:'')),
t.ans==='error'?'bad':'']);}}
for(const m of it.conversation){if(m.turn!==undefined)last[m.turn]=m.n;}
const ol=el(parent,'ol',undefined,'conv');
for(const m of it.conversation){const li=el(ol,'li',undefined,'msg '+m.role);li.dataset.n=m.n;
if(m.role==='tool'){folded(li,'#'+m.n+' tool result'+(m.result_of!==undefined?' of call '+
m.result_of:'')+(m.tool?' · '+m.tool:'')+(m.error?' (error)':''),m.text,'result');}
else{el(li,'div','#'+m.n+' '+m.role+(m.turn!==undefined?' · turn '+m.turn:''),'role');
if(m.reasoning)folded(li,'reasoning',m.reasoning,'reasoning');
if(m.text||!m.calls)el(li,'div',m.text,'text');
for(const c of(m.calls||[]))folded(li,'calls tool '+c.n+': '+c.name,c.arguments,'call');}
if(m.turn!==undefined&&last[m.turn]===m.n&&notes[m.turn]){
const ul=el(li,'ul',undefined,'verdicts');ul.setAttribute('aria-label','verdicts on turn '+m.turn);
for(const[t,cls]of notes[m.turn])el(ul,'li',t,cls);}}}
function media(parent,parts){el(parent,'h4','Images and documents ('+parts.length+')');
const box=el(parent,'div',undefined,'media');for(const p of parts){
const fig=el(box,'figure',undefined,'part '+p.kind);
if(p.src&&/^data:image\/(png|jpeg|gif|webp);base64,[A-Za-z0-9+\/=]+$/.test(p.src)){
const img=document.createElement('img');img.src=p.src;img.alt=p.label;fig.appendChild(img);}
el(fig,'figcaption',p.label);}}
function show(it){openId=it.id;detail.replaceChildren();detail.hidden=false;
const head=el(detail,'h3','Item '+it.id+' · score '+fmt(it.score)+
(it.passed===null?'':(it.passed?' · passed':' · not passed')));
head.tabIndex=-1;const close=el(detail,'button','Close');close.type='button';
close.addEventListener('click',()=>{detail.hidden=true;openId=null;draw();});
if(it.error)el(detail,'p','Item error: '+it.error,'bad');if(it.usage)kv(detail,it.usage);
if(it.conversation){el(detail,'h4','Conversation ('+it.conversation.length+' messages)');
conversation(detail,it);}else{el(detail,'h4','Submission');
el(detail,'pre',it.submission||'(not in this file: pass --submissions)');}
if(it.media)media(detail,it.media);
el(detail,'h4','Criteria ('+it.crit.length+')');
const t=el(detail,'table');const h=el(el(t,'thead'),'tr');
for(const c of['criterion','answer',...(data.labels?['people']:[]),'confidence','reason'])
el(h,'th',c);
const tb=el(t,'tbody');for(const c of it.crit){const tr=el(tb,'tr');el(tr,'th',c.key);
el(tr,'td',c.ans,c.ans==='error'||(c.human!==undefined&&c.human!==c.ans)?'bad':'');
if(data.labels)el(tr,'td',c.human===undefined?'–':c.human);el(tr,'td',fmt(c.conf));
el(tr,'td',c.error?c.error:(c.reason||''),c.error?'bad':'');}
for(const c of it.crit)criterion(detail,c);
if(it.calls){el(detail,'h4','Raw judge output for the whole item');raw(detail,it.calls);}
for(const r of body.children)r.className=r.dataset.id===it.id?'open':'';
history.replaceState(null,'','#item='+encodeURIComponent(it.id));
detail.scrollIntoView({block:'start'});head.focus({preventScroll:true});}
for(const id of['filter','f-min','f-max'])$(id).addEventListener('input',reset);
for(const id of['f-passed','f-errors'])$(id).addEventListener('change',reset);
$('sort').addEventListener('change',()=>{sortKey=$('sort').value;sortDir=1;reset();});
for(const th of document.querySelectorAll('#items th[data-key]')){
th.tabIndex=0;
const go=()=>{const k=th.dataset.key;sortDir=k===sortKey?-sortDir:1;sortKey=k;reset();};
th.addEventListener('click',go);th.addEventListener('keydown',e=>{if(e.key==='Enter')go();});}
more.addEventListener('click',()=>{shown+=PAGE*4;draw();});
draw();
const m=/^#item=(.*)$/.exec(location.hash);
if(m){let want=null;try{want=decodeURIComponent(m[1]);}catch(e){}
const it=items.find(x=>x.id===want);if(it)show(it);}
})();
"""
