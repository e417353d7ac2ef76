"""Source of benchmarks/data/pairs/llmbar_natural_pairs.jsonl: 13 pairs from LLMBar.

Copied verbatim from princeton-nlp/LLMBar, ``Dataset/LLMBar/Natural/dataset.json`` at
commit caa7bee794bfed74baed038b99229fa3f0c4c511, MIT licence, (c) the LLMBar authors:
Zeng, Yu, Gao, Meng, Goyal and Chen, "Evaluating Large Language Models at Evaluating
Instruction Following" (ICLR 2024, arXiv:2310.07641). ``index`` is the instance's
position (from 0) in that file; ``label`` is LLMBar's gold preference (1 or 2). We took
13 of the file's first 23 instances, leaving out the long posts to summarise and the
code, and changed nothing in them.
"""

from __future__ import annotations

LLMBAR_NATURAL = [
    {
        "index": 1,
        "input": "Complete a brief story given the following first sentence. [MALE] was a weatherman.",
        "output_1": "He learned his weather report. He prepared for his forecast. He expected the forecast would be wrong. Yet when the forecast report came back positive!",
        "output_2": "He would always mistreat it every day. He eats a lot of food. He is glad he had a cow.",
        "label": 1,
    },
    {
        "index": 2,
        "input": "How many integers are in the solution of the inequality |x + 5| < 10 ? ",
        "output_1": "The inequality |x + 5| < 10 means that the absolute value of x + 5 is less than 10.\nSince the absolute value is always non-negative, this is equivalent to -10 < x + 5 < 10.\nSubtracting 5 from all parts, we get -15 < x < 5.\nTherefore, the solution set contains all integers between -15 and 5, exclusive. \nThere are 5 - (-15) - 1 = 19 integers in the solution set.\n\nSo the number of integers in the solution is 19",
        "output_2": "The list of integers that satisfy the inequality |x + 5| < 10 contains -4, -3, -2, -1 , 0, 1, 2, 3, 4. Any integer smaller than -4 or larger than 4 will violate the inequality. Therefore, there are a total of 9 integers that satisfy |x + 10| < 5.",
        "label": 1,
    },
    {
        "index": 3,
        "input": "Why does eating something crunchy sound so loud and overpower other sounds?",
        "output_1": "The sound is transmitted through the vibrations of your jawbone and skull directly to your inner ear, so it can seem much louder than most other sounds.",
        "output_2": "The noise that crunchy foods make when we eat them can reach 63 decibels. Humans love crunchy, noisy snacks, and the noise can help us identify what we are eating. The noise draws attention to the mouth and makes us concentrate on what we are eating. This can also influence how much we consume.",
        "label": 1,
    },
    {
        "index": 5,
        "input": "Complete a brief story given the following first sentence.\n\nOne day my wife and I were on the bench in front of our building.",
        "output_1": "My wife felt very down so I started to play a game. She ended up making a lot of friends on the bench. She had a big smile on her face to show her appreciation. I had fun that day.",
        "output_2": "We were expecting a refund. the next week, the store had an iPad. The next week, the other kids were transferred to the store. We were all the best we had ever washed the car.",
        "label": 1,
    },
    {
        "index": 8,
        "input": "Explain: Pathos, Ethos, Logos ",
        "output_1": "Ethos is the ethical appeal, which is used to convince an audience of the author's credibility or character. Pathos is the emotional appeal, which is used to persuade an audience by appealing to their emotions. Logos is the appeal to logic and is used to convince an audience by the use of logic and reason.",
        "output_2": "Pathos is a tool of persuasion that is used to appeal to readers' emotions by arousing positive or negative feelings. It can be used in rhetoric, literature, film, and other forms of expression. While pathos is used to draw an emotional response, the other rhetorical appeals appeal to credibility and logic, respectively. Ethos is the distinguishing character, sentiment, moral nature, or guiding beliefs of a person, group, or institution. It is often evident as facts, numbers, or statistics and is used to convince an audience of an argument.",
        "label": 1,
    },
    {
        "index": 9,
        "input": "Some people got on a bus at the terminal. At the first bus stop, half of the people got down and 4 more people got in. Then at the second bus stop, 6 people got down and 8 more got in. If there were a total of 25 people heading to the third stop, how many people got on the bus at the terminal? ",
        "output_1": " * Originally some people got on the bus at the terminal\n* At the first stop, half of those people got off\n* 4 more people got on\n* At the second stop, 6 people got off\n* 8 more people got on\n* There were 25 people heading to the third stop\n* Let's think step by step:\n    * If there were x people originally at the terminal\n    * At the first stop, x/2 people got off, and 4 got on, so there were x/2 + 4 people\n    * At the second stop, 6 people got off, and 8 got on, so there were (x/2 + 4) - 6 + 8 = x/2 + 6 people\n    * We know there were 25 people heading to the third stop, so:\n    * 25 = x/2 + 6\n    * 50 = x\n    * Therefore, there were originally 50 people at the terminal\n\nSo the answer is that 50 people got on the bus at the terminal.",
        "output_2": "Let's start by using algebra to solve the problem. \n\nLet x be the number of people who got on the bus at the terminal. \n\nAt the first stop, half of the people got down, so there were x/2 people left on the bus. Then 4 more people got in, so the total number of people on the bus was x/2 + 4. \n\nAt the second stop, 6 people got down, so there were x/2 + 4 - 6 = x/2 - 2 people left on the bus. Then 8 more people got in, so the total number of people on the bus was x/2 - 2 + 8 = x/2 + 6. \n\nWe know that there were 25 people heading to the third stop, so we can set up an equation: \n\nx/2 + 6 = 25 \n\nSolving for x, we get: \n\nx/2 = 19 \n\nx = 38 \n\nTherefore, 38 people got on the bus at the terminal.",
        "label": 2,
    },
    {
        "index": 10,
        "input": "Complete a brief story given the following first sentence. we sat down to watch the news with dinner.",
        "output_1": "They had caught a big storm about tonight. The news says the storm had made it a mud puddle. We decided to do some things about it. We cleaned the puddle up afterward.",
        "output_2": "Our girlfriend was not allowed to go to the party. She told us she was not to be upset. She was very upset. She joined the club.",
        "label": 1,
    },
    {
        "index": 14,
        "input": "Introduce yourself in the tone of a medieval knight at a royal banquet.",
        "output_1": "Greetings, noble lords and ladies, I am Sir [Your name], a valiant knight and loyal servant to His/Her Majesty, King/Queen [Monarch's Name], ruler of the great realm of [Kingdom Name]. To maintain the sovereignty and well-being of this revered land, I solemnly pledge my sword and honor. Bound by the code of chivalry, I vow to uphold justice, bring solace to the distressed, and safeguard the realm for all present and future generations. I invite you to rejoice in our mutual fellowship and indulge in the festivities of this magnificent royal banquet.",
        "output_2": 'As a medieval knight, I would introduce myself at a royal banquet with a deep bow and a respectful speech, acknowledging my humble origins and my loyalty to the crown. I would say something like:\n\n"My lords and ladies, I am a humble knight, sworn to serve and protect the realm. I come from a long line of warriors who have fought to defend this kingdom for generations. I am honored to be here today, in the presence of such an esteemed company, and I hope to earn your trust and respect with my deeds and actions. I pledge my sword, my shield, and my life to the service of my king and my people."\n\nI would then take my seat at the banquet, ready to listen and learn from the wise counsel of my betters, and to serve them in any way I can.',
        "label": 1,
    },
    {
        "index": 15,
        "input": "Summarize the following content with keeping the main points.\n\nMy parents are Indian, and though they are fairly open-minded with most topics, they don't approve of my white boyfriend who I've been dating for almost 2 years (I told them about him 1 year ago). I am now doing a short internship abroad for 3 months, and he is planning on visiting. Should I tell my parents about this visit, especially if it will upset them greatly and disapprove of our decision to get more 'serious'? I know the easier thing to do would be not never tell them he visited, and to enjoy his company without having to deal with family drama. But is this a cop-out?",
        "output_1": "My boyfriend is visiting me while I'm in Europe, and I don't know if I should tell my parents about it.",
        "output_2": "My Indian parents disapprove of my white boyfriend for his ethnicity and will probably be upset if he visits me while I'm abroad. Should I tell them about his visit, or just enjoy his company without dealing with family drama?",
        "label": 2,
    },
    {
        "index": 16,
        "input": "Complete a brief story given the following first sentence: We went to a dinner and show one night.",
        "output_1": "We left the fridge to get to make him think he would not. He laughed when he said he might buy a pizza. We went to the right nearby place. He had won the contest and enjoyed dinner.",
        "output_2": "There were just six people at the dinner. The show's DJ was very inviting, but only for one person. He played a duet with a few other people. It ended up being good.",
        "label": 2,
    },
    {
        "index": 18,
        "input": "Below is some companies' data: \na) Company X, with CEO Amy Williams, reported $30 billion in revenue and a $3 billion profit in 2021.\nb) Company Y, led by CEO Mark Thompson, posted a $60 billion revenue and a $6 billion profit in the same year.\nc) Company Z, under CEO Sarah Johnson, announced a $20 billion revenue and a $7 billion profit in 2021.\nd) Company W, managed by CEO James Smith, revealed a $300 billion revenue with a $21 billion profit in 2021.\ne) Company V, with CEO Lisa Brown, reported a $200 billion revenue and a $25 billion profit in 2021.\nf) Company U, under CEO John White, posted a $180 billion revenue and a $20 billion profit in the same year.\n\nWhich company had the highest profit margin (profit/revenue ratio)?",
        "output_1": "The company with the highest profit in 2021 is Company V, led by CEO Lisa Brown, with a $25 billion profit on $200 billion revenue.\n\nHowever, it is important to note that the other companies mentioned in the question also reported significant profits, and the size of the company does not necessarily indicate its profitability.",
        "output_2": "The company with the highest profit margin in 2021 is Company Z, managed by CEO Sarah Johnson.",
        "label": 2,
    },
    {
        "index": 20,
        "input": "Generate two rhymes for the following word. Moon",
        "output_1": "Soon, Loon",
        "output_2": "Clone, June, Nore, Tune",
        "label": 1,
    },
    {
        "index": 21,
        "input": "Given the following input statement, provide the type of sentiment in the statement and the extent of sentiment in terms of sentiment scores. This restaurant has the best service I've ever seen. You can design the score scale by yourself.",
        "output_1": "This statement has a sentiment score of 9 / 10",
        "output_2": "Positive sentiment, sentiment score: 9.5 out of 10",
        "label": 2,
    },
]

# Our rubric for these pairs (LLMBar ships none): its rule that an output which
# precisely follows the instruction beats one that does not, in our words.
RUBRIC = {
    "format": "rubricjudge/1",
    "name": "instruction_following",
    "criteria": [
        {
            "name": "follows",
            "requirement": "The response does exactly what the instruction asks, keeping to every stated constraint (task, number of items, format, length)",
            "weight": 2.0,
        },
        {
            "name": "correct",
            "requirement": "The response's content is correct, relevant and coherent",
            "weight": 1.0,
        },
    ],
}
