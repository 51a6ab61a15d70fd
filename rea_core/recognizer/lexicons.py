"""Closed word classes of French, German, Spanish, Italian and Portuguese for the multilingual stage 2.

The shipped stage 2 reads MiniLM embeddings of an English model and English cue words, so it
scores "À partir de maintenant, réponds-moi en français" near 0, and no multilingual encoder is
installable offline here. What tells a standing instruction from a task or a remark is carried by
a few grammatical classes, the same in every language: how long a wish lasts, who it binds, an
imperative or a request frame aimed at the assistant, a first-person fact with its consequence,
a one-off marker, a question about the world. Each class below is one pattern per language; a
model trained on the hard set's dev half (``multilingual.py``) weighs them. Adding a language is
adding one pattern to each class. English has a pattern in each class too: the English second opinion
(``recognize.py``, stage "word-classes") reads them beside the MiniLM embedding.

Pure: no model, no I/O.
"""

from __future__ import annotations

import re

LANGS = ("fr", "de", "es", "it", "pt")  # routed to the multilingual stage 2 (``rules.rule_stage``)
# Every class also has an English pattern: the English word-class model reads them (``recognize.py``).
CLASS_LANGS = ("en", *LANGS)

_REPLY_NOUN = (
    r"(réponses?|messages?|suggestions?|recommandations?|explications?|recettes?|conseils?|propositions?|idées"
    r"|\w*antwort(en)?|\w*nachricht(en)?|\w*vorschl[aä]\w*|\w*empfehlung(en)?|\w*erklärung(en)?|\w*rezept\w*|tipps?"
    r"|respuestas?|mensajes?|recetas?|sugerencias?|recomendaciones?|explicaciones?|consejos?|ideas|propuestas?"
    r"|rispost[ae]|messaggi|ricett[ae]|suggerimenti|consigli|spiegazioni|idee|proposte"
    r"|respostas?|mensagens?|receitas?|sugestões|sugestão|recomendações|explicações|conselhos?|ideias|dicas?)"
)

# How long a wish lasts: "from now on", "for the rest of our chat", "until I say otherwise", "never again".
PERSISTENCE = {
    "en": r"\bfrom (now|here|this point|today)( on(wards?)?)?\b|\bgoing forward\b|\bin (the )?future\b|\bhenceforth\b"
    r"|\bfor the (rest|remainder) of\b|\b(for|during|throughout) (the|this|our) (whole |entire )?(conversation"
    r"|chat|session)"
    r"|\buntil I (say|tell you)\b|\bnext time\b|\b(any ?more|any longer|never again|from here)\b|\bin general\b"
    r"|\b(for|in) (all|any|every) (of )?(your |my )?(future|subsequent|later|following|remaining|other)\b"
    r"|\bfrom (today|here)\b",
    "fr": r"\bà partir d(e |')(maintenant|aujourd'hui|ce moment|là|demain)|\bdésormais\b|\bdorénavant\b"
    r"|\bdès (maintenant|à présent)\b|\bà l'avenir\b|\bpour (toute )?la suite\b|\bjusqu'à (nouvel ordre|ce que je)"
    r"|\b(pour|pendant|durant) (tout )?(le reste de |toute )?(la|notre|cette) "
    r"(conversation|discussion|échange|session)"
    r"|\btout au long de\b|\bplus jamais\b|\bla prochaine fois\b|\bà chaque fois\b|\bde manière générale\b"
    r"|\bpour l'avenir\b|\b(dans|pour) (les|tes|vos) (prochaine?s|futur\w*|suivant\w*) \w+",
    "de": r"\bab (jetzt|sofort|heute|nun|morgen|hier|da)\b|\bvon (jetzt|nun|heute) an\b|\bin zukunft\b|\bkünftig\b"
    r"|\bzukünftig\b|\bfortan\b|\b(für|während) (den rest )?(des|unseres|dieses|unsere[ns]?|das|die) (ganzen? )?"
    r"(gespräch|chat|unterhaltung|konversation)\w*|\bbis auf weiteres\b|\bbis ich (dir )?(etwas|was) anderes\b"
    r"|\bnie (mehr|wieder)\b|\bdas nächste mal\b|\bnächstes mal\b|\bab sofort\b|\bfür die zukunft\b"
    r"|\b(bei|in|für) allen (weiteren|künftigen|folgenden|nächsten|kommenden) \w+",
    "es": r"\ba partir de (ahora|hoy|este momento|mañana|ya)\b|\bde ahora en adelante\b|\bdesde (ahora|hoy|ya)\b"
    r"|\ben adelante\b|\b(durante|por|para|en) (todo )?(el resto de )?(toda )?(la|nuestra|esta) (conversación|charla"
    r"|sesión)|\bde (aquí|acá) en (adelante|más)\b|\bhasta (nuevo aviso|que (te|le) diga)\b|\ben lo sucesivo\b"
    r"|\bno vuelvas a\b|\bnunca más\b|\bla próxima vez\b|\bpara siempre\b|\b(para|en) el futuro\b"
    r"|\b(en|para) (las|los|tus|sus) (próxim|siguient|futur)\w+ \w+",
    "it": r"\bd'ora in (poi|avanti)\b|\bda (ora|adesso|oggi|domani|qui) in (poi|avanti)\b|\bd'ora innanzi\b"
    r"|\bper (tutto )?(il resto )?(della|di questa|di|la|questa|tutta la|tutta questa|tutta la nostra) "
    r"(conversazione|chat|discussione)|\bfino a (nuovo ordine|quando non|che non)\b|\bin futuro\b|\bmai più\b"
    r"|\bla prossima volta\b|\bda ora\b|\bda adesso\b|\bper il futuro\b"
    r"|\b(nelle|per le|nei|per i|le|i) (prossim|successiv|futur)\w+ \w+",
    "pt": r"\ba partir de (agora|hoje|amanhã|já)\b|\bdaqui (pra|para a|para|em) (frente|diante)\b"
    r"|\bde agora em diante\b"
    r"|\b(pelo|durante|no|para o|em) (o )?(resto d[ae] |toda a )?(nossa |esta |a )?(conversa|sessão|chat)\b"
    r"|\baté (nova|segunda) ordem\b|\baté eu (te )?(dizer|falar)\b|\bdoravante\b|\bnunca mais\b|\bno futuro\b"
    r"|\bda próxima vez\b|\bde hoje em diante\b|\bpara o futuro\b"
    r"|\b(nas|nos|para as|para os) (próxim|seguint|futur)\w+ \w+",
}

# Frequency adverbs that make a wish general: "toujours", "immer", "siempre", "sempre", "nunca".
FREQUENCY = {
    "en": r"\b(always|never|every ?time|each time|whenever|all the time|constantly|by default|as a rule|generally"
    r"|usually|ever|every single)\b",
    "fr": r"\b(toujours|jamais|systématiquement|chaque fois|tout le temps|en général|partout|sans arrêt"
    r"|constamment)\b",
    "de": r"\b(immer|nie|niemals|ständig|dauernd|jedes ?mal|generell|grundsätzlich|stets|jeweils|überall|allgemein)\b",
    "es": r"\b(siempre|nunca|jamás|cada vez|todo el tiempo|en general|por lo general|constantemente)\b",
    "it": r"\b(sempre|mai|ogni volta|in generale|di solito|tutte le volte|costantemente|in ogni caso)\b",
    "pt": r"\b(sempre|nunca|jamais|cada vez|toda vez|em geral|o tempo todo|constantemente|sempre que)\b",
}

# The assistant's replies as what the wish covers: "toutes tes réponses", "jede Antwort", "cada vez que me".
REPLY_SCOPE = {
    "en": r"\b(your|ur|all (of )?(your|the)|any of your) (\w+ ){0,2}(answers|replies|responses|explanations"
    r"|suggestions"
    r"|recommendations|recipes|examples|snippets|translations|summaries|messages|outputs|ideas|tips|plans|options)\b"
    r"|\b(every|each|any|all) (\w+ ){0,2}(answer|reply|response|explanation|suggestion|recommendation|recipe|example"
    r"|translation|summary|idea|tip|plan|option)s? (you|from you)\b|\b(when|whenever|if|each time"
    r"|every time) you (\w+ )?"
    r"(explain|suggest|recommend|answer|reply|respond|write|translate|give|talk|help|show|list|plan|correct|review"
    r"|describe|quote|mention|pick|do)\b|\b(for|with|in) (all|any|every|each) (of )?my \w+|\bwhen I ask\b|\bwith me\b"
    r"|\bfor anything\b|\b(anything|everything|whatever) (you|I)\b",
    "fr": rf"\b(toutes?|tous|chaque|tes|vos|dans les|aux|ta|ton) ((tes|vos|les|mes|de tes) )?(\w+ )?{_REPLY_NOUN}\b"
    r"|\b(chaque|à chaque) fois que (tu|vous)\b|\b(quand|lorsque|si) (tu|vous) (me|m')",
    "de": rf"\b(jede[nmrs]?|alle[nmrs]?|deine[nmrs]?|ihre[nmrs]?|in den|bei den) (\w+ )?{_REPLY_NOUN}\b"
    r"|\b(jedes mal|immer|wann immer),? wenn du\b|\b(wenn|falls|sobald) du mi(r|ch)\b|\bbei (rezept|empfehl)\w*",
    "es": rf"\b(todas?|todos|cada|tus|sus|en las|en los) ((las|los|tus|sus) )?(\w+ )?{_REPLY_NOUN}\b"
    r"|\bcada vez que\b|\bcuando me \w+\b|\bsiempre que\b|\bcuando (hablemos|te pregunte|te pida|le pregunte)\b",
    "it": rf"\b(tutte?|tutti|ogni|le tue|i tuoi|le sue|nelle|nei|tue|tuoi) ((le|i|tue|tuoi) )?(\w+ )?{_REPLY_NOUN}\b"
    r"|\bogni volta che\b|\bquando mi \w+\b|\bquando (mi )?(rispondi|scrivi|consigli|suggerisci|correggi)\b",
    "pt": rf"\b(todas?|todos|cada|tuas|suas|nas|nos|teus|seus) ((as|os|tuas|suas) )?(\w+ )?{_REPLY_NOUN}\b"
    r"|\bsempre que\b|\bquando (me )?\w+r(es)?\b|\bcada vez que\b|\btoda vez que\b",
}

# Second person: the wish is addressed to someone (the assistant, unless a frame says otherwise).
ADDRESSEE = {
    "en": r"\b(you|your|yours|yourself|u|ur)\b",
    "fr": r"\b(tu|toi|tes|ton|vous|votre|vos)\b|\bt'\w|\bte\b|-(toi|vous)\b|\b\w+ez\b",
    "de": r"\b([Dd]u|[Dd]ich|[Dd]ir|[Dd]ein\w*|[Ee]uch|[Ee]uer|[Ee]ure\w*)\b|\b(Sie|Ihnen|Ihr|Ihre\w*)\b",
    "es": r"\b(tú|tu|tus|te|ti|contigo|usted|ustedes|vos|vosotros)\b|\b\w+á(s|me|te)\b",
    "it": r"\b(tu|ti|te|tuo|tua|tuoi|tue|Lei|Le sue|voi|vostr\w)\b",
    "pt": r"\b(você|vocês|tu|te|teu|tua|teus|tuas|contigo|o senhor|a senhora|vós)\b",
}

# The user as the object of the assistant's verb: "réponds-moi", "sprich mich", "háblame", "chiamami", "me chame".
USER_OBJECT = {
    "en": r"\b(me|myself)\b",
    "fr": r"\b(me|m')\b|-moi\b|\bavec moi\b|\bpour moi\b",
    "de": r"\b(mich|mir)\b",
    "es": r"\bme\b|\b\w{3,}(me|mela|melo|melas|melos)\b|\bconmigo\b|\bpara mí\b",
    "it": r"\bmi\b|\b\w{2,}(mi|melo|mela)\b|\bcon me\b|\bper me\b",
    "pt": r"\bme\b|-me\b|\bcomigo\b|\bpara mim\b|\bpra mim\b",
}

# Imperatives and their negative forms of the verbs that shape a reply (answer, write, use, avoid,
# stop, give, put, call, speak, keep, explain, add, say, be, make, suggest, include, show, address).
IMPERATIVE = {
    "en": r"(^|[.!?;:,]\s*|\b(please|pls|plz|just|and|also|so|then|but|now|instead)\s+)(answer|reply|respond"
    r"|write|use|avoid"
    r"|stop|give|put|call|speak|talk|keep|explain|add|say|be|make|suggest|include|show|address|stick|skip|drop|cut"
    r"|leave|assume|tell|list|format|mark|label|convert|tone|tighten|aim|treat|pick|default|switch|quit|limit|remember"
    r"|consider|factor|bear|mention|start|end|go|assume|lose|ditch|spell|translate|double-check|flag|warn|check"
    r"|don\'?t|do not|never|always|only|no more)\b",
    "fr": r"\b(réponds|répondez|écris|écrivez|utilise|utilisez|emploie|employez|évite|évitez|arrête|arrêtez|cesse"
    r"|cessez|donne|donnez|mets|mettez|appelle|appelez|parle|parlez|garde|gardez|explique|expliquez|ajoute|ajoutez"
    r"|dis|dites|sois|soyez|fais|faites|propose|proposez|recommande|recommandez|suggère|suggérez|inclus|incluez"
    r"|indique|indiquez|montre|montrez|tutoie|tutoyez|vouvoie|vouvoyez|reste|restez|limite|limitez|précise|précisez"
    r"|privilégie|privilégiez|oublie|oubliez|pense|pensez|tiens|tenez|rappelle|rappelez|traite|traitez|corrige"
    r"|corrigez|signale|signalez|passe|passez|commence|commencez|termine|terminez|va|allez|choisis|choisissez"
    r"|formule|formulez|structure|structurez|résume|résumez|cite|citez|convertis|convertissez|adapte|adaptez)\b"
    r"|\bne (me |m'|le |la |les |l')?\w+ (pas|plus|jamais|aucun\w*|rien)\b|\bn'\w+ (pas|plus|jamais)\b",
    "de": r"\b(antworte\w*|schreib\w*|verwende\w*|benutze?\w*|nutze?\w*|vermeide\w*|hör\w*|lass\w*|gib|gebt|nenn\w*"
    r"|sprich|sprecht|rede\w*|halt\w*|erklär\w*|füg\w*|sag\w*|sei|seid|mach\w*|empfiehl|schlag\w*|zeig\w*|duz\w*"
    r"|siez\w*|bleib\w*|beschränk\w*|denk\w*|berücksichtig\w*|formatier\w*|fass\w*|verzicht\w*|nimm|pack\w*|setz\w*"
    r"|triff|korrigier\w*|spar\w*|streich\w*|markier\w*|überspring\w*|komm\w*|fang\w*|beginn\w*|gliedere?\w*"
    r"|liste?\w*|rechne?\w*|wähl\w*|red|schick\w*|bitte)\b",
    "es": r"\b(responde\w*|respóndeme|respond[aáe]\w*|contesta\w*|contésta\w*|escribe\w*|escríbe\w*|escrib[ai]\w*"
    r"|usa|usá|use|usad|utiliza\w*|utilice\w*|evita\w*|evite\w*|evitá|deja\w* de|dejá de|para de|pará de|pare de"
    r"|da|dame|dé|deme|dale|pon|ponme|ponle|pongas|poné|llama\w*|llámame|llamame|habla\w*|háblame|hablame|hablá"
    r"|trata\w*|trátame|tratame|tratá|tutea\w*|tutéame|mantén\w*|mantené|mantenga|explica\w*|explícame|explicá"
    r"|añade\w*|agrega\w*|agregá|di|dime|decime|diga|sé|sea|sed|haz|hazme|hacé|haga|recomienda\w*|recomiéndame"
    r"|recomendá|recomiende|sugiere\w*|sugerí|sugiera|incluye\w*|incluí|incluya|indica\w*|indicá|muestra\w*|mostrá"
    r"|ten|tené|tenlo|sigue|seguí|siga|limita\w*|limitá|corrige\w*|corregí|corrija|empieza|empezá|empiece|comienza"
    r"|termina|terminá|elige|elegí|resume|resumí|resuma|cita|convierte|adapta|ahórrate|saltate|sáltate|olvida\w*"
    r"|piensa|pensá|piense|considera|considerá|asume|asumí)\b"
    r"|\b(no|nunca|jamás) (me |te |le |lo |la |los |las |nos )*\w+(es|as|éis|áis|en|an)\b",
    "it": r"\b(rispond\w*|scriv\w*|usa|usi|usate|utilizza\w*|evita\w*|evit\w*|smett\w*|dammi|da'|dai|dà|dia|metti\w*"
    r"|chiama\w*|parla\w*|parlami|tieni\w*|spiega\w*|aggiungi\w*|dimmi|di'|dica|sii|sia|fai|fammi|faccia"
    r"|consiglia\w*|suggerisci\w*|includi\w*|indica\w*|mostra\w*|resta|rimani|limita\w*|correggi\w*|evidenzia\w*"
    r"|ricorda\w*|segnala\w*|inizia|comincia|termina|chiudi|scegli|riassumi|cita|converti|adatta|salta|lascia"
    r"|risparmia\w*|dimentica\w*|tratta\w*|trattami)\b"
    r"|\bnon (mi |ti |lo |la |li |le |ne |ci )*\w+(are|ere|ire)\b|\bnon \w+(armi|ermi|irmi|arle|erle)\b",
    "pt": r"\b(responde|responda\w*|respond[ae]-me|escreve|escreva\w*|usa|use|usem|utiliza|utilize|evita|evite|para de"
    r"|pare de|deixa de|deixe de|dá|dê|dá-me|me dá|me dê|põe|ponha|coloca|coloque|chama|chame|chama-me|me chama"
    r"|me chame|fala|fale|trata|trate|trata-me|trate-me|me trata|me trate|mantém|mantenha|explica|explique"
    r"|acrescenta|acrescente|adiciona|adicione|diz|diga|diz-me|me diz|me diga|sê|seja|faz|faça|recomenda|recomende"
    r"|sugere|sugira|inclui|inclua|indica|indique|mostra|mostre|lembra|lembre|corrige|corrija|começa|comece"
    r"|termina|termine|escolhe|escolha|resume|resuma|cita|cite|converte|converta|adapta|adapte|tira|tire|esquece"
    r"|esqueça|avisa|avise|manda|mande|poupa|poupe|pula|pule|vai|vá)\b"
    r"|\b(não|nunca|jamais) (me |te |lhe |o |a |os |as )*\w+(es|as|e|a|em|am)\b",
}

# Politeness that marks a request: "s'il te plaît", "bitte", "por favor", "per favore".
PLEASE = {
    "en": r"\b(please|pls|plz|kindly|would you mind|thanks in advance|thank you in advance)\b",
    "fr": r"\b(s'il (te|vous) pla[iî]t|stp|svp|merci d[e'])\b|\bje (te|vous) prie\b",
    "de": r"\b(bitte|bitteschön|sei so (gut|lieb))\b",
    "es": r"\b(por favor|porfa|porfis|porfavor|xfa|te lo pido)\b",
    "it": r"\b(per favore|per piacere|perfavore|ti prego|gentilmente|per cortesia)\b",
    "pt": r"\b(por favor|pfv|pf|se faz favor|faz favor|por gentileza)\b",
}

# A request frame aimed at the assistant: "je voudrais que tu", "ich möchte, dass du", "quiero que", "puoi".
REQUEST_FRAME = {
    "en": r"\bi(\'d| would) (like|prefer|rather|love|appreciate|want)\b|\bi (want|need|prefer|like it when) you\b"
    r"|\b(could|can|would|will) (you|u)\b|\bit (would|\'d) (help|be (great|nice|better|good))\b|\byou (should|must"
    r"|need to|have to|can)\b|\bmake sure\b|\bi prefer\b|\bi (like|want) (my|the|it)\b",
    "fr": r"\b(je (veux|voudrais|préfère|préférerais|souhaite|souhaiterais)|j'aimerais|j'adorerais|ce serait (bien"
    r"|mieux|top|sympa)) (que|qu')|\b(peux|pourrais|pouvez|pourriez)[- ](tu|vous)\b|\b(tu|vous) (peux|pourrais|pouvez"
    r"|pourriez|dois|devrais|devez)\b",
    "de": r"\b(ich (möchte|will|hätte (gern|lieber)|wünsche mir|wünsch mir|fände es (gut|besser|schön))|mir wäre"
    r" (es )?lieber|es wäre (schön|toll|gut|besser|nett)),? (dass|wenn) (du|sie)\b|\b(kannst|könntest|würdest|sollst"
    r"|solltest) du\b|\b(können|könnten|würden) Sie\b",
    "es": r"\b(quiero|quisiera|prefiero|preferiría|me gustaría|me encantaría|necesito|te pido|le pido|estaría bien)"
    r" que\b|\b(puedes|podrías|podés|pueden|podría|debes|deberías)\b",
    "it": r"\b(voglio|vorrei|preferisco|preferirei|mi piacerebbe|ti chiedo|le chiedo|sarebbe meglio) che\b"
    r"|\b(puoi|potresti|può|potrebbe|devi|dovresti)\b",
    "pt": r"\b(quero|queria|prefiro|preferia|gostaria|adoraria|peço|preciso) que\b|\b(pode|podes|poderia|podia"
    r"|consegue|deve|deverias|devia)\b",
}

# Stop doing something: "arrête de", "hör auf", "deja de", "smettila di", "para de", "nada de".
STOP_DOING = {
    "en": r"\b(stop|quit) \w+ing\b|\bno more\b|\benough (with|of)\b|\bcut (out )?the\b|\b(drop|lose|ditch|skip) the\b"
    r"|\bleave (out|that out|it out|off)\b|\bwithout (the|any|all)\b|\bdon\'?t (ever|keep|bother)\b|\b(don\'?t"
    r"|do not|never)"
    r" \w+",
    "fr": r"\b(arr[eê]te|arr[eê]tez|cesse|cessez) (de|d')|\bpas besoin de\b|\bplus (de|d') \w+|\bfini les\b"
    r"|\bassez (de|d')"
    r"|\bstop (aux|à|avec)\b|\bsans (les |des )?\w+",
    "de": r"\bhör\w* (bitte )?(auf|damit)\b|\blass\w* (bitte )?(das|die|den|doch)\b|\bkeine?\w* .{0,30}\bmehr\b"
    r"|\bverzicht\w* (bitte )?auf\b|\bschluss mit\b|\bspar (dir|euch)\b|\bohne \w+"
    r"|\bgewöhn\w* (dir|euch) .{0,60}\bab\b",
    "es": r"\b(deja|dejá|deje|para|pará|pare|basta) (de|con)\b|\bno vuelvas a\b|\bnada de\b|\bse acabó\b|\bbasta ya\b"
    r"|\bsin \w+|\bni una?\b",
    "it": r"\bsmett\w* (di|con)\b|\bbasta (con|coi|con le|con i)\b|\bniente (più )?\w+|\bbasta\b|\bsenza \w+",
    "pt": r"\b(para|pare|deixa|deixe|chega) de\b|\bnada de\b|\bchega\b|\bnão precisa\w*\b|\bsem \w+",
}

# "Keep that in mind", "for your information": a statement offered as context for later answers.
KEEP_IN_MIND = {
    "en": r"\b(keep|bear) (that |this |it )?in mind\b|\bremember (that|i|i\'m|my|we)\b|\btake (that|this|it) into"
    r" account\b|\bfactor (that|this|it) in\b|\bfyi\b|\bfor context\b|\bjust so you know\b|\bfor the record\b"
    r"|\bheads up\b|\bbe aware\b|\bdon\'?t forget\b|\bfor reference\b|\bnote that\b",
    "fr": r"\b(tiens?|tenez|prends?|prenez)[- ]en compte\b|\btenir compte\b|\bgarde[sz]? (ça|cela|le|bien|ceci) en"
    r" (tête|mémoire)|\bn'oubliez? pas\b|\bpour (info|ton info|votre info|information)\b|\bsache[sz]? que\b"
    r"|\brappelle-toi\b|\bsouviens-toi\b|\bretiens\b|\bje (te|vous) (préviens|signale|rappelle)\b|\bà savoir\b",
    "de": r"\bberücksichtig\w*|\bdenk\w* (bitte )?(dran|daran)\b|\bbehalt\w*.{0,30}\b(im (hinter)?kopf|im auge)"
    r"|\bzur info\b|\bbeachte\w*|\bmerk (dir|euch)\b|\bmerken sie sich\b|\bvergiss\w* (das )?nicht\b"
    r"|\bvergessen sie nicht\b|\bdamit du (es |das )?weißt\b|\bbedenk\w*|\bnur (zur|als) info\b|\bfyi\b",
    "es": r"\bten(lo|ga|gan|edlo|é)? (\w+ )?(en cuenta|presente)\b|\btenlo presente\b|\btómalo en cuenta\b"
    r"|\btoma nota\b|\brecuerda\w*\b|\bacuérdate\b|\bno (te )?olvides\b|\bpara que (lo )?sepas\b|\bte aviso\b"
    r"|\bte cuento que\b|\bojo\b|\bque sepas\b|\bpara tu información\b",
    "it": r"\btien\w* (\w+ )?(conto|presente|a mente)\b|\bricorda(ti|telo|lo)?\b|\bnon (ti )?dimenticare\b"
    r"|\bti avviso\b|\bsappi(ate)? che\b|\bper tua informazione\b|\bprendi nota\b|\btieni a mente\b"
    r"|\b(ti|le|vi) (segnalo|informo|avverto|ricordo)\b"
    r"|\bper la cronaca\b",
    "pt": r"\b(tenha|tem|tenhas|leva|leve|levar|ter|teres) (isso |isto )?em (conta|consideração|mente)\b"
    r"|\blembr(a|e|a-te|e-se|ar)\b|\bnão (se |te )?esque[çc]\w*\b|\bfica a saber\b|\bsaiba que\b"
    r"|\bs[óo] (pra|para) (você|tu) saber\b|\banota aí\b|\bconsider[ae] isso\b|\bpara teres em conta\b",
}

# A first-person statement of a durable state: "je suis", "ich habe", "vivo en", "abito a", "moro em".
FIRST_PERSON_STATE = {
    "en": r"\bi(\'m| am|m) (a|an|on|in|from|based|allergic|vegan|vegetarian|diabetic|celiac|coeliac|blind|deaf"
    r"|colou?r|dyslexic|pregnant|new|learning|still|living|retired|\w+ intolerant|\w+ years old|not (a|an|very))\b"
    r"|\bi (have|\'ve got|live|work|use|teach|study|drive|own|rent|run)\b|\bi (can\'?t|cannot|don\'?t"
    r"|do not) (eat|have"
    r"|drink|read|see|hear|own|drive|afford|tolerate|do)\b|\bwe(\'re| are| have| live| don\'t)\b|\bmy (budget|income"
    r"|salary|eyesight|english|first language|job|diet|doctor)\b|\bim \w+",
    "fr": r"\b(je suis|j'ai|j'habite|je vis|je travaille|j'enseigne|je fais (du|de la|des)|je n'ai (pas|plus)"
    r"|je ne (mange|bois|peux|supporte|conduis"
    r"|digère|tolère|vois|lis|entends)|je me déplace|je suis en)\b",
    "de": r"\bich (bin|habe|hab|wohne|lebe|sitze|arbeite|vertrage|esse|trinke|kann|fahre|darf|höre|sehe|lese"
    r"|unterrichte|studiere)\b|\bdass ich\b",
    "es": r"\b(soy|tengo|vivo|trabajo|estoy|uso|enseño|doy clases|estudio"
    r"|no (como|puedo|tomo|bebo|tengo|manejo|conduzco|veo|oigo|leo))\b",
    "it": r"\b(sono|ho|abito|vivo|lavoro|uso|insegno|studio|faccio (il|la|l')|non (mangio|posso|bevo|ho|guido|vedo"
    r"|sento|leggo))\b",
    "pt": r"\b(sou|tenho|moro|vivo|trabalho|estou|uso|ensino|dou aulas|estudo"
    r"|não (como|posso|bebo|tenho|dirijo|conduzo|vejo|ouço|leio))\b",
}

# Durable conditions: diet and health, access needs, means, place and level; what such a fact is about.
CONDITION = {
    "en": r"\b(allerg\w*|intoleran\w*|diabet\w*|vegan|vegetarian|pescatarian|celiac|coeliac|gluten\w*|lactose|pregnant"
    r"|wheelchair|dyslexi\w*|colou?r-?blind|deaf|blind|screen reader|budget|broke|student|beginner|novice"
    r"|expert|teacher"
    r"|doctor|nurse|developer|engineer|car|kids|children|toddler|baby|time ?zone|adhd|autis\w*|anxiety|hearing|vision"
    r"|eyesight|income|month|nut|peanuts?|shellfish|dairy|halal|kosher|keto|medication|injury|knee|back pain"
    r"|zone \d+|hemisphere|apartment|balcony|metric|native)\b",
    "fr": r"\b(allerg\w*|intoléran\w*|diabét\w*|végé\w*|végan\w*|cœliaque|coeliaque|sans gluten|lactose|enceinte"
    r"|hypertendu\w*|fauteuil roulant|dyslexi\w*|daltonien\w*|sourd\w*|malvoyant\w*|aveugle|budget|étudiant\w*"
    r"|débutant\w*|expert\w*|professeur\w*|médecin|infirmi\w*|développeu\w*|voiture|permis|enfants?|bébé)\b",
    "de": r"\b(allergi\w*|\w*unverträglich\w*|\w*intoleranz|diabet\w*|vegetari\w*|vegan\w*|zöliakie|gluten\w*"
    r"|laktose\w*|schwanger|bluthochdruck|rollstuhl|legasthen\w*|farbenblind|schwerhörig|taub|blind|budget"
    r"|student\w*|studentin|anfänger\w*|expert\w*|lehrer\w*|ärztin|arzt|pfleger\w*|entwickler\w*|auto|führerschein"
    r"|\w*kinder\w*|kind|baby|kurzsichtig\w*|\w*berater\w*|steuer\w*)\b",
    "es": r"\b(al[ée]rgic\w*|alergia|intoleran\w*|diabétic\w*|vegetarian\w*|vegan\w*|celíac\w*|gluten|lactosa"
    r"|embarazada|hipertens\w*|silla de ruedas|disléxic\w*|daltónic\w*|sord\w*|cieg\w*|presupuesto|estudiante"
    r"|principiante|expert\w*|profesor\w*|médic[oa]|enfermer\w*|programador\w*|desarrollador\w*|coche|carro|auto"
    r"|carnet|licencia|hijos?|hijas?|bebé|altura)\b",
    "it": r"\b(allergic\w*|allergia|intolleran\w*|diabetic\w*|vegetarian\w*|vegan\w*|celiac\w*|glutine|lattosio"
    r"|incinta|ipertes\w*|sedia a rotelle|dislessic\w*|daltonic\w*|sord\w*|ciec\w*|budget|student\w*|principiante"
    r"|espert\w*|insegnante|professor\w*|medico|infermier\w*|sviluppat\w*|programmat\w*|macchina|patente|figli\w*"
    r"|bambin\w*|gemelli|miopia|miope|liceo|scuola)\b",
    "pt": r"\b(al[ée]rgic\w*|alergia|intoleran\w*|diabétic\w*|vegetarian\w*|vegan\w*|celíac\w*|glúten|lactose"
    r"|grávida|hipertens\w*|cadeira de rodas|disléxic\w*|daltónic\w*|daltônic\w*|surd\w*|ceg\w*|orçamento"
    r"|estudante|iniciante|principiante|especialista|professor\w*|médic[oa]|enfermeir\w*|programador\w*"
    r"|desenvolvedor\w*|carro|carta de condução|carteira de motorista|filhos?|filhas?|bebê|bebé)\b",
}

# What links a fact to later answers: "donc", "also", "así que", "quindi", "então", "quand tu ...".
CONSEQUENCE = {
    "en": r"\b(so|therefore|which means|that means|hence|thus)\b|\b(when|whenever|if) you\b|\bmatters? (for|when)\b"
    r"|\b(any|all|every) (\w+ )?(you|your)\b|\bneeds? to (be|work|fit)\b",
    "fr": r"\b(donc|alors|du coup|c'est pourquoi|par conséquent)\b|\b(quand|lorsque|si) (tu|vous)\b",
    "de": r"\b(also|deshalb|daher|darum|deswegen|insofern)\b|\b(wenn|falls|sobald) du\b",
    "es": r"\b(así que|asi que|por eso|entonces|por lo tanto|o sea|de modo que)\b|\b(cuando|si) me\b",
    "it": r"\b(quindi|perciò|per cui|dunque|per questo)\b|\bquando (mi )?\w+\b",
    "pt": r"\b(então|por isso|portanto|logo|entao)\b|\bquando (me )?\w+\b",
}

# Look and feel of a reply: language names, format, length, tone, units, address form.
REPLY_FORM = {
    "en": r"\b(english|spanish|french|german|italian|portuguese|bullets?|bullet points|lists?|tables?|markdown|emojis?"
    r"|bold|headings?|headers?|short(er)?|brief|concise|long(er)?|wordy|chatty|verbose|sentences?|words|paragraphs?"
    r"|lines|tone|formal|casual(ly)?|simple|simpler|plain|jargon|metric|imperial|grams|cups|celsius|fahrenheit|units"
    r"|comments?|typescript|python|javascript|examples?|summary|tl;?dr|intro|disclaimers?|sign-?offs?|steps|numbered"
    r"|blunt(er)?|polite|friendly|stiff|corporate|textbook|fluff|filler|caps|lowercase|dates?|format(ted)?)\b",
    "fr": r"\b(français|anglais|allemand|espagnol|italien|portugais|liste\w*|puces?|gras|emojis?|émojis?|titres?"
    r"|tableaux?|markdown|courte?s?|brève?s?|bref|concis\w*|longue?s?|phrases?|mots|lignes|paragraphes?|ton|formel\w*"
    r"|simple\w*|tutoie\w*|vouvoie\w*|tutoyer|vouvoyer|unités?|métrique\w*|grammes|kilos?|euros?|celsius|degrés)\b",
    "de": r"\b(deutsch|englisch|französisch|spanisch|italienisch|portugiesisch|liste\w*|aufzählung\w*|stichpunkt\w*"
    r"|fett|emojis?|überschrift\w*|tabelle\w*|markdown|kurz\w*|knapp\w*|länge|lang\w*|sätze?n?|wörter\w*|zeilen"
    r"|absätze?n?|ton|förmlich\w*|einfach\w*|locker\w*|duzen|siezen|du|sie|einheit\w*|metrisch\w*|gramm|kilo\w*"
    r"|euro|celsius|grad)\b",
    "es": r"\b(español|castellano|inglés|francés|alemán|italiano|portugués|listas?|viñetas|negritas?|emojis?"
    r"|títulos|tablas?|markdown|cort[oa]s?|breves?|concis[oa]s?|larg[oa]s?|frases|palabras|líneas|renglones"
    r"|párrafos|tono|formal\w*|sencill[oa]s?|simples?|tú|usted|vos|unidades|métric[oa]s?|gramos|kilos|euros"
    r"|pesos|celsius|grados)\b",
    "it": r"\b(italiano|inglese|francese|tedesco|spagnolo|portoghese|elench\w*|punti|grassetto|emoji|titoli|tabell\w*"
    r"|markdown|cort[oaie]|brevi?|concis[oaie]|lungh?[oaie]|frasi|parole|righe|paragrafi|tono|formale|semplic\w*"
    r"|semplice|tu|lei|unità|metric[oaie]|grammi|chili|euro|celsius|gradi)\b",
    "pt": r"\b(português|inglês|francês|alemão|espanhol|italiano|listas?|tópicos|marcadores|negrito|emojis?|títulos"
    r"|tabelas?|markdown|curt[oa]s?|breves?|concis[oa]s?|long[oa]s?|frases|palavras|linhas|parágrafos|tom|formal"
    r"|simples|você|tu|senhor|senhora|unidades|métric[oa]s?|gramas|quilos|euros|reais|celsius|graus)\b",
}

# A question about the world or an opinion: "est-ce vrai que", "glaubst du", "crees que", "secondo te".
WORLD_QUESTION = {
    "en": r"^\W*(will|is|are|does|do|did|has|have|was|were|why|how|what|when|where|who|which)\b[^.!]*\?"
    r"|\b(do you think|is it (true|possible)|will (it|they|there|prices|rates)|what will|how long will)\b",
    "fr": r"\b(est-ce (que|qu'|vrai)|crois-tu|penses-tu|tu crois|tu penses|c'est vrai|est-il vrai|sais-tu|selon toi"
    r"|d'après toi|qu'en penses-tu)\b",
    "de": r"\b(glaubst du|meinst du|denkst du|ist es wahr|stimmt es|weißt du|wird|werden|wie lange|was meinst)\b",
    "es": r"\b(crees que|creés que|piensas que|es verdad|es cierto|sabes si|será que|va a|van a|cuánto tiempo)\b",
    "it": r"\b(secondo te|pensi che|credi che|è vero|sai se|torneranno|tornerà|sarà|saranno|quanto tempo)\b",
    "pt": r"\b(você acha|acha que|achas que|é verdade|será que|sabe se|vai continuar|vão|quanto tempo)\b",
}

# Wording that ties a wish to one reply: "pour cette réponse seulement", "nur für diese Antwort".
ONE_OFF = {
    "en": r"\b(for|in) this (one|answer|reply|response|question|email|text|time|message|draft|version)\b"
    r"|\bjust this once\b"
    r"|\bthis time\b|\bfor now\b|\b(your |the )?next (reply|answer|response)\b|\bonly for this\b|\bbelow\b"
    r"|\bthe following\b|\bthis (paragraph|sentence|text|email|letter|post|note|line)\b|\bjust (for )?today\b"
    r"|\b(your|the|this) (entire )?(response|answer|reply|output|essay|story|poem)\b(?! (is|was|were|are|has"
    r"|had|felt)\b)",
    "fr": r"\b(pour|dans) (cette|ta prochaine|ce) (réponse|fois|texte|mail|message|question)\b|\bjuste cette fois\b"
    r"|\bseulement (pour )?(cette|ce)\b|\brien que pour\b|\bcette fois(-ci)?\b|\bci-dessous\b|\bsuivante?\b",
    "de": r"\b(nur )?(für|in|bei) (diese[nmrs]?|deine[nr]? nächste[nr]?) (antwort|mal|text|mail|nachricht|frage)\b"
    r"|\bnur dieses mal\b|\bdiesmal\b|\bdieses mal\b|\bfolgende[nmrs]?\b|\bunten\b",
    "es": r"\b(solo |sólo )?(para|en) (esta|tu próxima|este) (respuesta|vez|texto|correo|mensaje|pregunta)\b"
    r"|\bsolo esta vez\b|\besta vez\b|\bsiguiente\b|\babajo\b",
    "it": r"\b(solo )?(per|in) (questa|la prossima|questo) (risposta|volta|testo|mail|messaggio|domanda)\b"
    r"|\bsolo questa volta\b|\bquesta volta\b|\bseguente\b|\bqui sotto\b",
    "pt": r"\b(só |apenas )?(para|nesta|na|neste) (esta |próxima |este )?(resposta|vez|texto|e-mail|mensagem"
    r"|pergunta)\b|\bsó desta vez\b|\bdesta vez\b|\bseguinte\b|\babaixo\b",
}

# The user's own resolution or plan: "j'essaie", "ich versuche", "intento", "provo", "estou tentando".
SELF_STATEMENT = {
    "en": r"\bi(\'m| am|m) (trying|going|gonna|planning|determined|done|quitting|never)\b|\bi (try|decided|promised"
    r"|swore|vowed|resolved|will never|\'ll never|want to start|need to stop|should (start|stop))\b|\bi\'ve (decided"
    r"|promised|started|stopped|quit)\b|\bresolution\b|\b(rule|note) (for|to) (myself|self)\b|\blesson learned\b"
    r"|\bnever again (am|will|do) i\b|\bmy goal\b",
    "fr": r"\b(j'|je )(essaie|vais|compte|me suis|ai décidé|promets|arrête|commence|me mets|me jure|me promets)\b",
    "de": r"\b(versuche|werde|habe) ich\b|\bich (versuche|werde|habe mir|hab mir|fange|höre|trinke|esse|mache"
    r"|schwöre)\b|\bvorgenommen\b",
    "es": r"\b(intento|voy a|trato de|me propongo|he decidido|empiezo|dejo de|me pongo|me prometí|me juré"
    r"|me he propuesto|le vuelvo)\b",
    "it": r"\b(provo|cerco di|ho deciso|mi impegno|comincio|smetto|inizio|vado|mi sono (ri)?promess[oa]|ho giurato)\b",
    "pt": r"\b(estou tentando|estou a tentar|tento|vou|decidi|começo|paro de|deixo de|prometi|jurei)\b",
}

# Someone else is the subject: "ma fille ne range jamais", "mein Chef schreibt immer", "mi jefe siempre".
OTHER_PERSON = {
    "en": r"\b(my|our) (daughter|son|kids?|wife|husband|partner|boyfriend|girlfriend|boss|manager|mom|mum|dad|mother"
    r"|father|friends?|co-?workers?|colleagues?|brother|sister|neighbou?rs?|teacher|roommate|flatmate|team|company"
    r"|grandma|grandpa|uncle|aunt|cousin|school|office|landlord|doctor|coach|students?|clients?|customers?)\b"
    r"|\b(he|she|they) (always|never|keeps?|says?|said|will|wants?)\b|\bapparently\b|\beveryone\b|\bemployees\b"
    r"|\bstaff\b|\bmembers\b|\bthe (intern|bot|babysitter|kids|students|team|users|agents?|character)\b",
    "fr": r"\b(ma|mon|mes|notre|nos) (fille|fils|mari|femme|copine?|copain|chef\w*|mère|père|enfants?|collègues?|frère"
    r"|sœur|voisin\w*|prof\w*|patron\w*|ami\w*|coloc\w*)\b",
    "de": r"\b(meine?[nmrs]?|unsere?[nmrs]?) (tochter|sohn|mann|frau|freund\w*|chef\w*|mutter|vater|kinder|kolleg\w*"
    r"|bruder|schwester|nachbar\w*|lehrer\w*|mitbewohner\w*)\b",
    "es": r"\b(mi|mis|nuestr[oa]s?) (hij[oa]s?|marido|esposa|espos[oa]|novi[oa]|jef[ea]|madre|padre|mamá|papá|prim[oa]"
    r"|compañer[oa]s?|herman[oa]|vecin[oa]s?|profe\w*|amig[oa]s?)\b",
    "it": r"\b(mia|mio|miei|mie|il mio|la mia|i miei|le mie|nostr[oaie]) (figli[oa]|marito|moglie|ragazz[oa]|capo"
    r"|madre|padre|mamma|papà|cugin[oa]|colleg\w*|fratello|sorella|vicin[oi]|prof\w*|amic[oaih]\w*|coinquilin\w*)\b",
    "pt": r"\b(minha|meu|meus|minhas|noss[oa]s?) (filh[oa]s?|marido|esposa|namorad[oa]|chefe|mãe|pai|prim[oa]"
    r"|colegas?|irmã[o]?|vizinh[oa]s?|professor\w*|amig[oa]s?)\b",
}

# A standing release: "pas besoin de m'expliquer", "musst du mir nicht erklären", "no hace falta".
NO_NEED = {
    "en": r"\bno need (to|for)\b|\byou (don\'?t|do not) (need|have) to\b|\bdon\'?t bother\b|\bnot necessary\b"
    r"|\byou can skip\b|\bspare me\b|\bi (don\'?t|do not) need\b",
    "fr": r"\b(pas besoin de|inutile de|tu n'as pas besoin|vous n'avez pas besoin|pas la peine de)\b",
    "de": r"\b(musst|brauchst) du (mir )?\w* ?nicht\b|\bnicht nötig\b|\bkannst du dir sparen\b",
    "es": r"\b(no hace falta|no necesitas|no es necesario|no tienes que|no hay que)\b",
    "it": r"\b(non serve|non c'è bisogno|non devi|non è necessario|non occorre)\b",
    "pt": r"\b(não precisa|não é preciso|não há necessidade|não tens de|não tem que)\b",
}

# A correction of an earlier reply: "encore", "schon wieder", "otra vez", "di nuovo", "de novo".
AGAIN = {
    "en": r"\b(again|already|still)\b|\bi(\'ve| have)? (said|told you|asked)\b|\bas i said\b|\blike i said\b"
    r"|\byou keep\b|\bkeep \w+ing\b|\bonce more\b",
    "fr": r"\b(encore|de nouveau|à nouveau|une fois de plus)\b",
    "de": r"\b(schon wieder|wieder|erneut|nochmal|schon wieder)\b",
    "es": r"\b(otra vez|de nuevo|nuevamente|otra vez más)\b",
    "it": r"\b(di nuovo|ancora una volta|un'altra volta|ancora)\b",
    "pt": r"\b(de novo|outra vez|novamente|mais uma vez)\b",
}

# Feature order of the multilingual stage 2 (``multilingual.py``): these classes, then the flags it adds.
CLASSES = {
    "persistence": PERSISTENCE,
    "frequency": FREQUENCY,
    "reply_scope": REPLY_SCOPE,
    "addressee": ADDRESSEE,
    "user_object": USER_OBJECT,
    "imperative": IMPERATIVE,
    "please": PLEASE,
    "request_frame": REQUEST_FRAME,
    "stop_doing": STOP_DOING,
    "keep_in_mind": KEEP_IN_MIND,
    "first_person_state": FIRST_PERSON_STATE,
    "condition": CONDITION,
    "consequence": CONSEQUENCE,
    "reply_form": REPLY_FORM,
    "world_question": WORLD_QUESTION,
    "one_off": ONE_OFF,
    "self_statement": SELF_STATEMENT,
    "other_person": OTHER_PERSON,
    "no_need": NO_NEED,
    "again": AGAIN,
}
# German nouns and formal pronouns are capitalized: its second-person class is matched case-sensitively.
_CASE_SENSITIVE = {("addressee", "de")}


def _compile(name: str, lang: str, pattern: str) -> re.Pattern:
    flags = 0 if (name, lang) in _CASE_SENSITIVE else re.IGNORECASE
    return re.compile(pattern, flags)


COMPILED = {name: {lang: _compile(name, lang, rx) for lang, rx in table.items()} for name, table in CLASSES.items()}
assert all(set(table) == set(CLASS_LANGS) for table in CLASSES.values()), "every class covers every language"


def class_spans(text: str, lang: str) -> dict[str, list[tuple[int, int]]]:
    """For each class that fires in ``text`` read as ``lang``: the spans it matched."""
    found = {}
    for name, table in COMPILED.items():
        spans = [m.span() for m in table[lang].finditer(text)]
        if spans:
            found[name] = spans
    return found
